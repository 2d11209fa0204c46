-- Slurm cli_filter/lua plugin (CliFilterPlugins=lua): zeroplan's advice at the user's side, before
-- sbatch, srun or salloc sends the job. It runs as the user, so it cannot read the root-only token:
-- point its zeroplan.json at a planner that needs none (or at an advisory token users may read).
-- A job that does not fit is stopped here with the reason; one that fits gets the predicted time
-- limit when the user gave none. Install beside slurm.conf with zeroplan.lua, zeroplan_admit.py and
-- zeroplan.json.

local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local zeroplan = dofile(dir .. "zeroplan.lua")

local NO_VAL = 4294967294

function slurm_cli_setup_defaults(options, early_pass)
   return slurm.SUCCESS
end

function slurm_cli_pre_submit(options, pack_offset)
   local environment = os.getenv("ZEROPLAN_PLAN")
   environment = environment and ("ZEROPLAN_PLAN=" .. environment) or ""
   if not zeroplan.wanted(options["comment"], environment) then return slurm.SUCCESS end
   local nodes = tostring(options["nodes"] or "1"):match("^(%d+)") or "1"
   local gres = options["gres"] or ""
   local per_node = options["gpus-per-node"]
   if per_node ~= nil and per_node ~= "" then gres = "gpu:" .. per_node end
   local answer = zeroplan.ask({
      { "comment", options["comment"] },
      { "environment", environment },
      { "min_nodes", nodes },
      { "tres_per_node", gres },
      { "tres_per_job", options["gpus"] and ("gpu:" .. options["gpus"]) or "" },
      { "time_limit", (options["time"] ~= nil and options["time"] ~= "") and "set" or NO_VAL },
   })
   if answer.decision == "reject" then
      slurm.log_error("%s", answer.message or "zeroplan: refused")
      return slurm.ERROR
   end
   if answer.decision == "accept" then
      if answer.time_limit ~= nil then options["time"] = answer.time_limit end
      if answer.message ~= nil then slurm.log_info("%s", answer.message) end
   end
   return slurm.SUCCESS
end

function slurm_cli_post_submit(offset, job_id, step_id)
   return slurm.SUCCESS
end

-- Slurm job_submit/lua plugin (JobSubmitPlugins=lua): refuse at submission a job whose plan does not
-- fit, set the time limit of one that does from zeroplan's predicted time to train, and write the
-- prediction to the admin comment. Install beside slurm.conf with zeroplan.lua, zeroplan_admit.py
-- and zeroplan.json (README, "For cluster admins: zeroplan in Slurm").

local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local zeroplan = dofile(dir .. "zeroplan.lua")

-- Slurm's job_desc.environment is a table whose metatable looks a variable up by name (job_submit_lua.c,
-- _push_job_env): pairs() sees nothing, so the one variable zeroplan reads is asked for by its name.
local function environment_of(job_desc)
   if job_desc.script == nil then return "" end -- only batch jobs carry their environment here
   local ok, value = pcall(function()
      local env = job_desc.environment
      return env ~= nil and env[zeroplan.ENV_VAR] or nil
   end)
   if not ok or value == nil then return "" end
   return zeroplan.ENV_VAR .. "=" .. tostring(value)
end

function slurm_job_submit(job_desc, part_list, submit_uid)
   local environment = environment_of(job_desc)
   if not zeroplan.wanted(job_desc.comment, environment) then return slurm.SUCCESS end
   local answer = zeroplan.ask({
      { "comment", job_desc.comment },
      { "environment", environment },
      { "min_nodes", job_desc.min_nodes },
      { "tres_per_node", job_desc.tres_per_node },
      { "tres_per_job", job_desc.tres_per_job },
      { "time_limit", job_desc.time_limit },
   })
   if answer.decision == "reject" then
      slurm.log_info("zeroplan: refused a job of uid %s: %s", tostring(submit_uid), answer.message or "")
      slurm.log_user("%s", answer.message or "zeroplan: refused")
      return slurm.ERROR
   end
   if answer.decision == "accept" then
      if answer.time_limit ~= nil then job_desc.time_limit = tonumber(answer.time_limit) end
      if answer.admin_comment ~= nil then job_desc.admin_comment = answer.admin_comment end
      if answer.message ~= nil then
         slurm.log_info("zeroplan: uid %s: %s", tostring(submit_uid), answer.message)
         slurm.log_user("%s", answer.message)
      end
   end
   return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
   return slurm.SUCCESS
end

slurm.log_info("zeroplan: job_submit.lua loaded from %s", dir)
return slurm.SUCCESS

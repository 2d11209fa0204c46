-- Slurm job_submit/lua plugin (JobSubmitPlugins=lua): refuse at submission a job whose plan does not
-- fit, set the time limit of one that does from zeroplan's predicted time to train, and write the
-- prediction to the admin comment. Install beside slurm.conf with zeroplan.lua, zeroplan_admit.py
-- and zeroplan.json (README, "For cluster admins: zeroplan in Slurm").

local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local zeroplan = dofile(dir .. "zeroplan.lua")

local function environment_of(job_desc)
   if job_desc.script == nil then return "" end -- only batch jobs carry their environment here
   local ok, env = pcall(function() return job_desc.environment end)
   if not ok or type(env) ~= "table" then return "" end
   local lines = {}
   for key, value in pairs(env) do
      if type(key) == "string" then
         lines[#lines + 1] = key .. "=" .. tostring(value)
      else
         lines[#lines + 1] = tostring(value) -- a list of NAME=value strings
      end
   end
   return table.concat(lines, "\n")
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

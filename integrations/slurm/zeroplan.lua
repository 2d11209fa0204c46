-- zeroplan's admission check, shared by job_submit.lua (slurmctld) and cli_filter.lua (the user's side).
--
-- What the job asked for is written to a private temporary file (os.tmpname, mode 0600) as
-- length-prefixed fields and given to zeroplan_admit.py on standard input: nothing a user writes
-- reaches a command line, which holds only this folder's path and the temporary file's name.
-- The helper runs under timeout(1); when it gives no answer (killed, crashed, python missing) the
-- failure policy applies: on_error "accept" (fail-open, the default) or "reject" (fail-closed), read
-- from zeroplan.json beside this file.

local M = {}

local source = debug.getinfo(1, "S").source
M.dir = source:match("^@(.*/)") or "./"
M.python = "/usr/bin/python3"
M.timeout_s = 5
M.on_error = "accept"

local function read(path)
   local file = io.open(path, "r")
   if file == nil then return nil end
   local text = file:read("*a")
   file:close()
   return text
end

local config = read(M.dir .. "zeroplan.json")
if config ~= nil then
   local timeout = config:match('"timeout_s"%s*:%s*([%d%.]+)')
   if timeout ~= nil then M.timeout_s = tonumber(timeout) + 1 end
   local policy = config:match('"on_error"%s*:%s*"(%a+)"')
   if policy ~= nil then M.on_error = policy end
   local python = config:match('"python"%s*:%s*"([^"]+)"')
   if python ~= nil then M.python = python end
end

M.ENV_VAR = "ZEROPLAN_PLAN"

-- Does the job name a plan at all? Jobs that do not are let through without starting anything.
function M.wanted(comment, environment)
   if comment ~= nil and tostring(comment):find("^%s*zeroplan:") then return true end
   return environment ~= nil and environment:find("ZEROPLAN_PLAN=", 1, true) ~= nil
end

local function quoted(path)
   if path:find("'", 1, true) then error("zeroplan: the install path may not hold a quote") end
   return "'" .. path .. "'"
end

local function failed(why)
   if M.on_error == "reject" then
      return { decision = "reject", message = "zeroplan: the planner check failed (" .. why .. "); refused by site policy" }
   end
   return {
      decision = "accept",
      message = "zeroplan: the planner check failed (" .. why .. "); accepted unchecked",
      admin_comment = "zeroplan: unchecked, the check failed (" .. why .. ")",
   }
end

-- fields: a list of {name, value}; returns the helper's answer as a table (decision, message, ...).
function M.ask(fields)
   local tmp = os.tmpname()
   local file = io.open(tmp, "wb")
   if file == nil then return failed("no temporary file") end
   for _, pair in ipairs(fields) do
      local value = tostring(pair[2] or "")
      file:write(pair[1], " ", #value, "\n", value, "\n")
   end
   file:close()
   local command = string.format(
      "/usr/bin/timeout -k 1 %d %s %s %s < %s 2>/dev/null",
      math.ceil(M.timeout_s), quoted(M.python), quoted(M.dir .. "zeroplan_admit.py"),
      quoted(M.dir .. "zeroplan.json"), quoted(tmp))
   local pipe = io.popen(command, "r")
   local text = ""
   if pipe ~= nil then
      text = pipe:read("*a") or ""
      pipe:close()
   end
   os.remove(tmp)
   local answer = {}
   for line in text:gmatch("[^\n]+") do
      local key, value = line:match("^(%S+) ?(.*)$")
      if key ~= nil then answer[key] = value end
   end
   if answer.decision == nil then
      return failed("no answer within " .. math.ceil(M.timeout_s) .. " s")
   end
   return answer
end

return M

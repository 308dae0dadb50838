-- Run by test/server/neovim.test.ts in a headless Neovim (Debian's, 0.7) with the app's file open,
-- whose init.lua is docs/editors.md's Neovim 0.7 set-up as printed there: Neovim's own LSP client
-- on `hotline lsp`, lenses refreshed on attach and on DiagnosticChanged. It records
-- what Neovim holds and shows (lenses and their virtual text, the hover window, diagnostics, code
-- actions, the message of a lens run by the server), in two phases:
--   phase1.json  the run shown at start;
--   phase2.json  after the test lands a second run: the lenses once they have changed.
-- Every wait is bounded (vim.wait on a state, HOTLINE_WAIT_MS); a timeout writes failed.json with
-- what was seen and exits non-zero, so the test never hangs on Neovim.
local function env(name)
  local v = os.getenv(name)
  assert(v and v ~= '', name .. ' is not set')
  return v
end
local out = env('HOTLINE_OUT')
local wait_ms = tonumber(env('HOTLINE_WAIT_MS'))
local hover_line = tonumber(env('HOTLINE_HOVER_LINE'))
local bufnr = vim.api.nvim_get_current_buf()
local messages = {}

local function write(name, value)
  local tmp = out .. '/' .. name .. '.tmp'
  local f = assert(io.open(tmp, 'w'))
  f:write(vim.fn.json_encode(value))
  f:close()
  assert(os.rename(tmp, out .. '/' .. name))
end

local function lenses()
  local list = {}
  for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
    table.insert(list, { line = l.range.start.line + 1, title = l.command and l.command.title or vim.NIL })
  end
  table.sort(list, function(a, b)
    return a.line < b.line or (a.line == b.line and tostring(a.title) < tostring(b.title))
  end)
  return list
end

local function diagnostics()
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(list, { line = d.lnum + 1, col = d.col, message = d.message, source = d.source or vim.NIL })
  end
  return list
end

local function state(client_id)
  -- What the buffer shows: the lenses' virtual text, by line.
  local shown = {}
  local ns = vim.lsp.codelens.__namespaces[client_id]
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
    local text = {}
    for _, chunk in ipairs(m[4].virt_text or {}) do
      table.insert(text, chunk[1])
    end
    table.insert(shown, { line = m[2] + 1, text = table.concat(text) })
  end
  return { lenses = lenses(), virtualText = shown, diagnostics = diagnostics(), messages = messages }
end

local function fail(why, client_id)
  local seen = client_id and state(client_id) or { messages = messages }
  seen.reason = why
  write('failed.json', seen)
  vim.cmd('cquit 1')
end

local function wait(what, client_id, condition)
  if not vim.wait(wait_ms, condition, 20) then
    fail('timed out after ' .. wait_ms .. ' ms waiting for ' .. what, client_id)
    return false
  end
  return true
end

-- The client is the one docs/editors.md's Neovim 0.7 set-up (this Neovim's init.lua) started when
-- the file's FileType was set; its messages are recorded through the default handler.
vim.lsp.handlers['window/showMessage'] = function(_, result)
  table.insert(messages, result.message)
end
local client_id
if not wait('the hotline client of the set-up in docs/editors.md to attach', nil, function()
  for id, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == 'hotline' then
      client_id = id
      return c.initialized == true
    end
  end
  return false
end) then
  return
end

-- ---- phase 1: the newest run at start ----------------------------------------------------------
if not wait('the lenses and the diagnostics of the run shown at start', client_id, function()
  return #lenses() > 0 and #diagnostics() > 0
end) then
  return
end

-- The hover window, as K opens it on the hot line.
vim.api.nvim_win_set_cursor(0, { hover_line, 0 })
vim.lsp.buf.hover()
local hover
if not wait('the hover window', client_id, function()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      hover = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
      return true
    end
  end
  return false
end) then
  return
end

-- The code actions of the hot line's diagnostic, asked as vim.lsp.buf.code_action() asks (0.7).
local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  range = { start = { line = hover_line - 1, character = 0 }, ['end'] = { line = hover_line - 1, character = 0 } },
  context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(bufnr, hover_line - 1) },
}, wait_ms)
local actions = {}
for _, r in pairs(responses or {}) do
  for _, a in ipairs(r.result or {}) do
    table.insert(actions, {
      title = a.title,
      kind = a.kind or vim.NIL,
      hasEdit = a.edit ~= nil,
      command = a.command or vim.NIL,
    })
  end
end

-- The hot line's lens run as codelens.run() runs it: a workspace/executeCommand the server answers.
local client = vim.lsp.get_client_by_id(client_id)
local run_lens = vim.tbl_filter(function(l)
  return l.range.start.line + 1 == hover_line
end, vim.lsp.codelens.get(bufnr))[1]
local before = #messages
client.request('workspace/executeCommand', run_lens.command, function() end, bufnr)
if not wait("the message of the hot line's lens command", client_id, function()
  return #messages > before
end) then
  return
end

-- The hint's Explain action, applied as vim.lsp.buf.code_action() applies a command: the server answers.
local explain = vim.tbl_filter(function(a)
  return a.command ~= vim.NIL
end, actions)[1]
if explain then
  before = #messages
  client.request('workspace/executeCommand', explain.command, function() end, bufnr)
  if not wait('the message of the Explain action', client_id, function()
    return #messages > before
  end) then
    return
  end
end

local first = state(client_id)
first.hover = hover
first.codeActions = actions
first.commands = client.server_capabilities.executeCommandProvider
write('phase1.json', first)

-- ---- phase 2: the test lands another run; the lenses follow it, no restart -----------------------
local was = vim.fn.json_encode(first.lenses)
if not wait('the lenses to change after a new run landed', client_id, function()
  return #lenses() > 0 and vim.fn.json_encode(lenses()) ~= was
end) then
  return
end
write('phase2.json', state(client_id))
vim.cmd('qa!')

-- neovim_test.lua — steps of tests/lsp-neovim.sh, run in Neovim headless
-- after init.lua: open a chapter with masks and separators, wait for
-- jinghua's diagnostics, hover, apply a code action, fix all (a code
-- action resolved lazily) and format, and check the buffer and the
-- diagnostics.  Expected values come from
-- `jinghua check --format json` and `jinghua fix --stdout` (EXPECT_DIR).
local dir = os.getenv('EXPECT_DIR')
local timeout = tonumber(os.getenv('LSP_TIMEOUT_MS') or '120000')
local failures = 0

local function fail(msg)
  failures = failures + 1
  io.stderr:write('FAIL: ' .. msg .. '\n')
end

local function read(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local function done()
  io.stderr:write(failures == 0 and 'neovim: all passed\n' or ('neovim: ' .. failures .. ' failed\n'))
  vim.cmd(failures == 0 and 'qall!' or 'cquit! 1')
end

local function diags_by(buf, code)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == code then
      table.insert(out, d)
    end
  end
  table.sort(out, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
  return out
end

local ok, err = pcall(function()
  local want = vim.fn.json_decode(read(dir .. '/findings.json'))
  vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/chapter.txt'))
  local buf = vim.api.nvim_get_current_buf()
  if vim.bo[buf].filetype ~= 'text' then
    vim.bo[buf].filetype = 'text'
  end
  if not vim.wait(timeout, function() return #vim.diagnostic.get(buf) > 0 end, 20) then
    fail('no diagnostics within the timeout')
    return
  end
  local got = vim.diagnostic.get(buf)
  if #got ~= #want then
    fail(('%d diagnostics, jinghua check has %d'):format(#got, #want))
  end
  -- every finding where jinghua check puts it (Neovim turns the server's
  -- UTF-16 columns into byte columns: the line starts with 𠀀)
  for _, f in ipairs(want) do
    local found = false
    for _, d in ipairs(got) do
      local line = vim.api.nvim_buf_get_lines(buf, d.lnum, d.lnum + 1, false)[1]
      local col_chars = vim.fn.strchars(line:sub(1, d.col))
      if d.code == f.rule and d.lnum + 1 == f.line and col_chars + 1 == f.column then
        found = true
      end
    end
    if not found then
      fail(('no diagnostic %s at %d:%d'):format(f.rule, f.line, f.column))
    end
  end

  -- a code action: the preferred quickfix on the first separator
  local seps = diags_by(buf, 'censor.separator')
  if #seps == 0 then
    fail('no censor.separator diagnostic')
    return
  end
  local s = seps[1]
  local before = vim.api.nvim_buf_get_lines(buf, s.lnum, s.lnum + 1, false)[1]
  vim.api.nvim_win_set_cursor(0, { s.lnum + 1, s.col })

  -- hover on it: the rule's explanation
  local hov = vim.lsp.buf_request_sync(buf, 'textDocument/hover', vim.lsp.util.make_position_params(), timeout)
  local value = ''
  for _, r in pairs(hov or {}) do
    if r.result and r.result.contents then
      value = value .. (r.result.contents.value or '')
    end
  end
  if not (value:find('censor.separator', 1, true) and value:find('examples:', 1, true)) then
    fail('hover does not explain censor.separator: ' .. value)
  end
  local chosen
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      local action = item[2]
      if action.isPreferred and action.kind == 'quickfix' and not chosen then
        chosen = action.title
        on_choice(item)
        return
      end
    end
    fail('no preferred quickfix among ' .. #items .. ' actions')
    on_choice(nil)
  end
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  vim.lsp.buf.code_action()
  if not vim.wait(timeout, function() return vim.api.nvim_buf_get_changedtick(buf) ~= tick end, 20) then
    fail('the code action did not change the buffer')
    return
  end
  local after = vim.api.nvim_buf_get_lines(buf, s.lnum, s.lnum + 1, false)[1]
  local sep_char = before:sub(s.col + 1, s.end_col)
  local expect = before:sub(1, s.col) .. before:sub(s.end_col + 1)
  if after ~= expect then
    fail(('code action "%s": line is\n  %s\nexpected\n  %s'):format(chosen or '?', after, expect))
  end
  -- the server checks the changed text: one separator fewer
  if not vim.wait(timeout, function() return #diags_by(buf, 'censor.separator') == #seps - 1 end, 20) then
    fail(('after the fix: %d separators, expected %d'):format(#diags_by(buf, 'censor.separator'), #seps - 1))
  end

  -- fix-all as a code action (Neovim asks codeAction/resolve for its edit):
  -- the buffer becomes jinghua fix --stdout
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      if item[2].kind == 'source.fixAll.jinghua' then
        on_choice(item)
        return
      end
    end
    fail('no source.fixAll.jinghua action among ' .. #items)
    on_choice(nil)
  end
  tick = vim.api.nvim_buf_get_changedtick(buf)
  vim.lsp.buf.code_action({ only = { 'source.fixAll' } })
  if not vim.wait(timeout, function() return vim.api.nvim_buf_get_changedtick(buf) ~= tick end, 20) then
    fail('fix-all did not change the buffer')
  end
  local function buffer_text()
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
  end
  if buffer_text() ~= read(dir .. '/fixed.txt') then
    fail('after fix-all the buffer is not jinghua fix --stdout')
    vim.fn.writefile(vim.api.nvim_buf_get_lines(buf, 0, -1, false), dir .. '/got.txt')
  end
  -- formatting applies the same safe fixes: nothing is left for it
  vim.lsp.buf.formatting_sync(nil, timeout)
  if buffer_text() ~= read(dir .. '/fixed.txt') then
    fail('formatting after fix-all changed the buffer')
  end
  if not vim.wait(timeout, function() return #diags_by(buf, 'censor.separator') == 0 end, 20) then
    fail('separators left after formatting')
  end

  -- Markdown: the server runs for it too, and code is not checked
  vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/notes.md'))
  local md = vim.api.nvim_get_current_buf()
  if not vim.wait(timeout, function() return #vim.diagnostic.get(md) > 0 end, 20) then
    fail('no diagnostics for Markdown')
  end
  for _, d in ipairs(vim.diagnostic.get(md)) do
    if d.lnum >= 4 then
      fail('a diagnostic inside a code block: ' .. d.code .. ' line ' .. (d.lnum + 1))
    end
  end
end)
if not ok then
  fail('error: ' .. tostring(err))
end
done()

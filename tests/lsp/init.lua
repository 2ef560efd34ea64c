-- init.lua — a minimal Neovim configuration that starts `jinghua lsp` for
-- plain text and Markdown (Neovim 0.7's API; 0.8+ can use vim.lsp.start).
-- tests/lsp-neovim.sh runs Neovim headless with it; README shows the same.
local jinghua = os.getenv('JINGHUA') or 'jinghua'
vim.api.nvim_create_autocmd('FileType', {
  pattern = { 'text', 'markdown' },
  callback = function(args)
    local file = vim.api.nvim_buf_get_name(args.buf)
    local id = vim.lsp.start_client({
      name = 'jinghua',
      cmd = { jinghua, 'lsp' },
      root_dir = vim.fn.fnamemodify(file, ':p:h'),
    })
    if id then
      vim.lsp.buf_attach_client(args.buf, id)
    end
  end,
})

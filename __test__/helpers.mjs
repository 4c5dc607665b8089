// Shared helpers for the node tests: a temp workspace per test, and byte-level file checks.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'

export const require = createRequire(import.meta.url)
export const sp = require('../index.js')

export function workspace(t) {
  const root = mkdtempSync(join(tmpdir(), 'surepatch-test-'))
  t.after(() => rmSync(root, { recursive: true, force: true }))
  return {
    root,
    path: (p) => join(root, p),
    write: (p, data) => writeFileSync(join(root, p), data),
    read: (p) => readFileSync(join(root, p)),
    text: (p) => readFileSync(join(root, p), 'utf8'),
    // Every file in the root, so a test can assert no temp or lock files were left behind.
    files: () => readdirSync(root).sort(),
    opts: (extra = {}) => ({ workspace_root: root, ...extra }),
  }
}

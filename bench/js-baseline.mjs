// The plain-JavaScript baseline: the same contract as surepatch's exact tier, written the way JS peers
// write it (read the whole file as a string, count occurrences with an indexOf loop, refuse 0 or 2+,
// replace, write a temp file in the same directory, fsync it, rename it over the target).
//
// Kept deliberately faithful: overlapping occurrences count (the loop steps one UTF-16 unit past each
// hit, like surepatch steps one character), the file's mode is kept, the temp file is removed on
// failure, and the directory is fsynced after the rename (as surepatch does). It does no sandboxing,
// no locking, no encoding detection and no diff, so it is a lower bound for a JS implementation with
// the same durability, not a feature-equivalent one.

import { promises as fs, constants } from 'node:fs'
import path from 'node:path'
import crypto from 'node:crypto'

/** Every occurrence of `needle` in `hay`, overlapping ones included (the count only). */
export function countOccurrences(hay, needle) {
  let count = 0
  let pos = hay.indexOf(needle)
  while (pos !== -1) {
    count++
    pos = hay.indexOf(needle, pos + 1)
  }
  return count
}

/**
 * Replaces the single occurrence of `search` in `filePath` by `replace`, atomically.
 * Resolves to `{ok: true, replacements: 1}` or `{ok: false, code, message}`; never rejects for a
 * user error.
 */
export async function jsEdit(filePath, search, replace) {
  if (search === '') return { ok: false, code: 'INVALID_INPUT', message: 'search is empty' }
  let text
  let mode
  try {
    const st = await fs.stat(filePath)
    mode = st.mode & 0o7777
    text = await fs.readFile(filePath, 'utf8')
  } catch (e) {
    return { ok: false, code: e.code === 'ENOENT' ? 'FILE_NOT_FOUND' : 'FILE_READ_ERROR', message: e.message }
  }
  const count = countOccurrences(text, search)
  if (count === 0) return { ok: false, code: 'SEARCH_BLOCK_NOT_FOUND', message: 'search text not found' }
  if (count > 1) return { ok: false, code: 'SEARCH_BLOCK_AMBIGUOUS', message: `search text found ${count} times` }
  const at = text.indexOf(search)
  const out = text.slice(0, at) + replace + text.slice(at + search.length)
  await writeAtomic(filePath, out, mode)
  return { ok: true, replacements: 1 }
}

/** Temp file in the same directory + fsync + rename + directory fsync. */
export async function writeAtomic(filePath, data, mode) {
  const dir = path.dirname(filePath)
  const tmp = path.join(dir, `.${path.basename(filePath)}.${process.pid}-${crypto.randomBytes(6).toString('hex')}.tmp`)
  let fh
  try {
    fh = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode ?? 0o644)
    await fh.writeFile(data)
    await fh.sync()
    await fh.close()
    fh = undefined
    await fs.rename(tmp, filePath)
  } catch (e) {
    if (fh) await fh.close().catch(() => {})
    await fs.unlink(tmp).catch(() => {})
    throw e
  }
  const d = await fs.open(dir, 'r')
  try {
    await d.sync()
  } finally {
    await d.close()
  }
}

/** The Node I/O floor: read the bytes, write them to a temp file, fsync, rename, fsync the directory. */
export async function nodeFloor(filePath) {
  const buf = await fs.readFile(filePath)
  await writeAtomic(filePath, buf, 0o644)
}

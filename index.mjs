// The ES module door: the same functions as index.js (CommonJS, which napi-rs generates around the
// addon), under their names, so `import { patchFile, toolDefinitions } from 'surepatch'` works at run
// time and not only in the types. __test__/exports.test.mjs checks that this list and index.js agree.
import lib from './index.js'

export const {
  ErrorCode,
  patchFile,
  mergeSnippet,
  applyEdits,
  previewEdits,
  viewFile,
  listDirectory,
  findFiles,
  searchFiles,
  readManyFiles,
  moveFile,
  createDirectory,
  createCheckpoint,
  restoreCheckpoint,
  listCheckpoints,
  editLines,
  listSymbols,
  editSymbol,
  createFile,
  writeFile,
  deleteFile,
  undoEdit,
  applyPatch,
  applyBlocks,
  applyUnifiedDiff,
  parseBlocks,
  parsePathBlocks,
  errorCodes,
  permissionScope,
  touchedFiles,
  getStats,
  setEventLog,
  toolDefinitions,
  createToolRunner,
} = lib

export default lib

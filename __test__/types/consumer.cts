// The same package consumed as CommonJS.
import surepatch = require('surepatch')

async function main(): Promise<void> {
  const r = await surepatch.patchFile({ filePath: 'a.txt', searchBlock: 'x', replaceBlock: 'y' })
  if (!r.ok) {
    const code: surepatch.ErrorCode = r.code
    console.log(code, r.message)
  } else {
    console.log(r.after_bytes)
  }
}

void main()

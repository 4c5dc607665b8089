#!/usr/bin/env node
// apply_patch: `surepatch apply --format apply_patch`, under the name agents trained on Codex call in a
// shell (`apply_patch <<'EOF'` ... `EOF`, or the patch as the one argument). Exit 0 applied, 1 refused
// (nothing written), 2 usage error.
import { main } from '../cli/main.mjs'

process.exitCode = await main(['apply', ...process.argv.slice(2)], { program: 'apply_patch', inline: true, format: 'apply_patch' })

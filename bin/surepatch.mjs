#!/usr/bin/env node
// surepatch: the MCP server (default, on stdio or --http), and `apply` / `view` / `undo` on the command
// line. Run `surepatch --help`; see cli/main.mjs.
import { main } from '../cli/main.mjs'

// The server keeps running (its transport holds the process open); the other commands end here.
process.exitCode = await main(process.argv.slice(2))

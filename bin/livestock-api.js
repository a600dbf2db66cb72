#!/usr/bin/env node
// Operator CLI entry. Runs the TypeScript sources directly (Node >= 22.18 strips types natively);
// `npm exec livestock-api` and npm scripts run it on the project's pinned Node 24.
import { runCli } from '../src/cli.ts'

const args = process.argv.slice(2)
const code = await runCli(args)
// `serve` keeps running after runCli returns; only a refusal to start is its exit code.
if (args[0] !== 'serve' || code !== 0) process.exitCode = code

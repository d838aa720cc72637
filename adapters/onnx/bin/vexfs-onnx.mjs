#!/usr/bin/env node
// vexfs-onnx: the ONNX Runtime side of moving a KV cache between llama.cpp and
// ONNX Runtime (docs/kv.md, "Across runtimes"). Errors go to stderr with exit 1;
// a bad command line exits 2.
import { parseArgs } from 'node:util';
import { AdapterError } from '../lib/model.mjs';
import { commands } from '../lib/commands.mjs';

const usage = `usage: vexfs-onnx <command> [options]
commands:
  tokenize --model DIR --prompt TEXT [--json]
  logits   --model DIR (--prompt TEXT | --token-ids 1,2,3) [--top N] [--logits-out FILE] [--json]
  verify   --model DIR --cache EXPORTED [--steps N] [--json]   (a cache from vexfs kv export --layout hf)
  capture  --model DIR (--prompt TEXT | --prompt-file F | --token-ids 1,2,3) --out DIR
           [--reference-steps N] [--json]   (for vexfs kv import --layout hf)
  bench    --model DIR --cache EXPORTED [--reps N] [--json]   (restore against re-prefill, medians)`;

async function main(argv) {
  const [name, ...rest] = argv;
  const command = commands[name];
  if (!command) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: command.options, strict: true });
  } catch (e) {
    process.stderr.write(`vexfs-onnx ${name}: ${e.message}\n`);
    return 2;
  }
  await command.run(parsed.values);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`vexfs-onnx: ${e instanceof AdapterError ? e.message : e.stack}\n`);
    process.exit(1);
  },
);

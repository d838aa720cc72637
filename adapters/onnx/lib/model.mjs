// A converted model (adapters/onnx/convert) loaded into ONNX Runtime through
// transformers.js, and one forward pass over new tokens with an explicit cache.
import fs from 'node:fs';
import path from 'node:path';
import { env, AutoModelForCausalLM, AutoTokenizer, Tensor } from '@huggingface/transformers';

// Everything comes from the model folder: nothing is fetched.
env.allowRemoteModels = false;

export class AdapterError extends Error {}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new AdapterError(`cannot read ${file}: ${e.message}`);
  }
}

export async function loadModel(dir) {
  const root = path.resolve(dir);
  const identity = readJson(path.join(root, 'vexfs_model.json'));
  const config = readJson(path.join(root, 'config.json'));
  const model = await AutoModelForCausalLM.from_pretrained(root, { dtype: 'fp32', local_files_only: true });
  const tokenizer = await AutoTokenizer.from_pretrained(root, { local_files_only: true });
  return { root, identity, config, model, tokenizer };
}

export function tokenize(loaded, text) {
  return Array.from(loaded.tokenizer.encode(text, { add_special_tokens: false }));
}

function int64(values, dims) {
  return new Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), dims);
}

// Runs `tokens` after `past` (an object of past_key_values.{i}.key|value
// Tensors, or null for an empty cache). Returns the logits of every new position
// ([tokens.length][vocab] as one Float32Array, row-major) and the cache with the
// new tokens appended, under past_key_values.* names.
export async function forward(loaded, tokens, past) {
  const pastLength = past ? past['past_key_values.0.key'].dims[2] : 0;
  const inputs = {
    input_ids: int64(tokens, [1, tokens.length]),
    attention_mask: int64(new Array(pastLength + tokens.length).fill(1), [1, pastLength + tokens.length]),
  };
  if (past) inputs.past_key_values = past;
  const out = await loaded.model(inputs);
  const next = {};
  for (const [name, tensor] of Object.entries(out)) {
    if (name.startsWith('present.')) next[name.replace('present.', 'past_key_values.')] = tensor;
  }
  return { logits: out.logits.data, vocab: out.logits.dims[2], past: next };
}

export function lastRow(result) {
  const rows = result.logits.length / result.vocab;
  return result.logits.subarray((rows - 1) * result.vocab, rows * result.vocab);
}

export function argmax(row) {
  let best = 0;
  for (let i = 1; i < row.length; ++i) if (row[i] > row[best]) best = i;
  return best;
}

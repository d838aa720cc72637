// The ONNX Runtime side of a capture: prefill a prompt, then write its cache
// (the present.* outputs) with the next token's logits and a recorded greedy
// continuation, as a folder `vexfs kv import --layout hf` turns into a state file.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { argmax, forward, lastRow } from './model.mjs';

const FORMAT = 'vexfs-kv-hf-v1';
const REFERENCE_FORMAT = 'vexfs-kv-reference-v1';
const REFERENCE_TOP = 10;

function floatBytes(values) {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);  // little-endian hosts
}

function referenceStep(token, logits) {
  const ids = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a] || a - b).slice(0, REFERENCE_TOP);
  return {
    token,
    logits_sha256: crypto.createHash('sha256').update(floatBytes(logits)).digest('hex'),
    top: ids.map((id) => [id, logits[id]]),
  };
}

async function recordContinuation(loaded, past, first, steps) {
  const out = [];
  let row = first;
  for (let i = 0; i < steps; ++i) {
    const token = argmax(row);
    out.push(referenceStep(token, row));
    if (i + 1 === steps) break;
    const next = await forward(loaded, [token], past);
    past = next.past;
    row = lastRow(next);
  }
  return out;
}

export function runtimeName() {
  const version = (name) => {
    try {
      const file = path.join(import.meta.dirname, '..', 'node_modules', ...name.split('/'), 'package.json');
      return JSON.parse(fs.readFileSync(file, 'utf8')).version;
    } catch {
      return '?';
    }
  };
  return `onnxruntime-node ${version('onnxruntime-node')} (transformers.js ${version('@huggingface/transformers')})`;
}

export async function capture(loaded, tokens, outDir, referenceSteps) {
  const start = process.hrtime.bigint();
  const prefill = await forward(loaded, tokens, null);
  const prefillSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  const next = lastRow(prefill);
  const reference = referenceSteps > 0 ? await recordContinuation(loaded, prefill.past, next, referenceSteps) : null;

  const c = loaded.config;
  const parts = [];
  for (let l = 0; l < c.num_hidden_layers; ++l) {
    for (const part of ['key', 'value']) parts.push(floatBytes(prefill.past[`past_key_values.${l}.${part}`].data));
  }
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'cache.f32'), Buffer.concat(parts));
  fs.writeFileSync(path.join(outDir, 'next_logits.f32'), floatBytes(next));
  const source = loaded.identity.source;
  const manifest = {
    format: FORMAT, layout: 'hf', dtype: 'float32', arch: source.arch,
    weights_fingerprint: source.weights_fingerprint, hparams_fingerprint: source.hparams_fingerprint,
    tokenizer_fingerprint: source.tokenizer_fingerprint,
    n_layers: c.num_hidden_layers, n_heads: c.num_attention_heads, n_kv_heads: c.num_key_value_heads,
    head_dim: c.head_dim, n_tokens: tokens.length, rope: 'neox', rope_freq_base: c.rope_theta, k_after_rope: true,
    runtime: runtimeName(), tokens, cache: 'cache.f32', next_logits: 'next_logits.f32', n_vocab: next.length,
    reference: reference && { format: REFERENCE_FORMAT, settings: `${runtimeName()} fp32`, steps: reference },
  };
  // Last: a folder with a manifest is complete.
  fs.writeFileSync(path.join(outDir, 'manifest.json'), `${JSON.stringify(manifest)}\n`);
  return { tokens: tokens.length, prefill_seconds: prefillSeconds, reference_tokens: reference?.map((s) => s.token) };
}

// A KV cache exported by `vexfs kv export --layout hf`, checked against the model
// it is to run in, as past_key_values Tensors.
import fs from 'node:fs';
import path from 'node:path';
import { Tensor } from '@huggingface/transformers';
import { AdapterError } from './model.mjs';

const FORMAT = 'vexfs-kv-hf-v1';

function readFloats(file, count, what) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new AdapterError(`cannot read the ${what} ${file}: ${e.message}`);
  }
  if (bytes.length !== count * 4) {
    throw new AdapterError(`the ${what} ${file} has ${bytes.length} bytes, expected ${count * 4}`);
  }
  // A copy into an aligned buffer: the file's Buffer may start at any offset.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

// Refuses a cache made by another model, naming what differs.
export function checkIdentity(manifest, loaded) {
  const source = loaded.identity.source;
  for (const part of ['weights', 'hparams', 'tokenizer']) {
    const key = `${part}_fingerprint`;
    if (manifest[key] !== source[key]) {
      throw new AdapterError(`the state's ${part} fingerprint ${String(manifest[key]).slice(0, 16)}… is not ` +
                             `the model's ${String(source[key]).slice(0, 16)}… (${loaded.root}): another model`);
    }
  }
  const c = loaded.config;
  const want = [['n_layers', c.num_hidden_layers], ['n_kv_heads', c.num_key_value_heads], ['head_dim', c.head_dim]];
  for (const [key, value] of want) {
    if (manifest[key] !== value) {
      throw new AdapterError(`the cache has ${key} ${manifest[key]}, the model ${value}`);
    }
  }
  // K is stored after rotary embedding in both runtimes, rotated the same way.
  if (manifest.rope !== 'neox' || source.rope !== 'neox' || manifest.k_after_rope !== true) {
    throw new AdapterError(`the cache's K is ${manifest.k_after_rope ? 'after' : 'before'} ${manifest.rope} RoPE; ` +
                           `the model applies ${source.rope} RoPE before caching`);
  }
}

export function readCache(dir, loaded) {
  const file = path.join(dir, 'manifest.json');
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new AdapterError(`cannot read ${file}: ${e.message}`);
  }
  if (manifest.format !== FORMAT || manifest.dtype !== 'float32') {
    throw new AdapterError(`${file} is not a ${FORMAT} float32 cache`);
  }
  checkIdentity(manifest, loaded);
  const { n_layers: layers, n_kv_heads: heads, head_dim: dim, n_tokens: tokens } = manifest;
  if (!Array.isArray(manifest.tokens) || manifest.tokens.length !== tokens || tokens < 1) {
    throw new AdapterError(`${file} lists ${manifest.tokens?.length} tokens for ${tokens}`);
  }
  const vocab = loaded.config.vocab_size;
  const bad = manifest.tokens.findIndex((t) => !Number.isInteger(t) || t < 0 || t >= vocab);
  if (bad >= 0) throw new AdapterError(`${file}: token ${bad} (${manifest.tokens[bad]}) is outside the vocabulary of ${vocab}`);
  const per = heads * tokens * dim;
  const values = readFloats(path.join(dir, manifest.cache), 2 * layers * per, 'cache');
  const nextLogits = readFloats(path.join(dir, manifest.next_logits), loaded.config.vocab_size, 'next-token logits');
  return { manifest, values, nextLogits, per };
}

// The cache as past_key_values Tensors. `mutate(layer, isV, view)` may change a
// copy (the corrupted control); without it the Tensors share the file's values.
export function pastTensors(cache, mutate) {
  const { n_layers: layers, n_kv_heads: heads, head_dim: dim, n_tokens: tokens } = cache.manifest;
  const past = {};
  for (let l = 0; l < layers; ++l) {
    for (const [i, part] of [[0, 'key'], [1, 'value']]) {
      let view = cache.values.subarray((2 * l + i) * cache.per, (2 * l + i + 1) * cache.per);
      if (mutate) {
        view = view.slice();
        mutate(l, i === 1, view);
      }
      past[`past_key_values.${l}.${part}`] = new Tensor('float32', view, [1, heads, tokens, dim]);
    }
  }
  return past;
}

// The control: every layer's V rows in reverse token order, so each key meets
// another token's value.
export function reverseValues(cache) {
  const { n_kv_heads: heads, head_dim: dim, n_tokens: tokens } = cache.manifest;
  return (layer, isV, view) => {
    if (!isV) return;
    const copy = view.slice();
    for (let h = 0; h < heads; ++h) {
      for (let t = 0; t < tokens; ++t) {
        const from = (h * tokens + (tokens - 1 - t)) * dim;
        view.set(copy.subarray(from, from + dim), (h * tokens + t) * dim);
      }
    }
  };
}

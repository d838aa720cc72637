// The adapter's commands: what each takes and does (bin/vexfs-onnx.mjs runs them).
import fs from 'node:fs';
import { AdapterError, argmax, forward, lastRow, loadModel, tokenize } from './model.mjs';
import { capture } from './capture.mjs';
import { benchRestore, verify } from './verify.mjs';

function print(values, json, text) {
  process.stdout.write(json ? `${JSON.stringify(values)}\n` : `${text}\n`);
}

function tokenIds(loaded, values) {
  if (Boolean(values.prompt) === Boolean(values['token-ids'])) {
    throw new AdapterError('give exactly one of --prompt and --token-ids');
  }
  if (values.prompt) return tokenize(loaded, values.prompt);
  const vocab = loaded.config.vocab_size;
  return values['token-ids'].split(',').map((s) => {
    const id = /^\d+$/.test(s.trim()) ? Number(s) : NaN;
    if (!Number.isInteger(id) || id >= vocab) {
      throw new AdapterError(`token id '${s}' is not a whole number below the vocabulary size ${vocab}`);
    }
    return id;
  });
}

function topIds(row, count) {
  const ids = Array.from(row.keys());
  ids.sort((a, b) => row[b] - row[a] || a - b);
  return ids.slice(0, count);
}

function positiveInteger(text, flag) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new AdapterError(`${flag} takes a positive integer, not '${text}'`);
  return n;
}

function printVerify(r, loaded) {
  const c = r.vs_reprefill;
  const s = r.vs_source;
  const lines = [
    `${r.n_tokens} tokens restored into ${r.runtime} in ${r.restore_seconds.toFixed(4)} s ` +
      `(its own re-prefill: ${r.reprefill_seconds.toFixed(4)} s)`,
    `vs re-prefill: ${c.top1_agreement}/${c.steps} tokens agree, first divergence ${c.first_divergence}, ` +
      `largest |Δlogit| ${c.max_abs_logit_diff.toPrecision(3)} (aligned ${c.max_abs_logit_diff_aligned.toPrecision(3)})`,
    s.available
      ? `vs source (${s.settings}): ${s.top1_agreement}/${s.steps} tokens agree, first divergence ` +
        `${s.first_divergence}, largest |Δlogit| over its top logits ${s.max_abs_logit_diff.toPrecision(3)} ` +
        `(aligned ${s.max_abs_logit_diff_aligned.toPrecision(3)})`
      : 'vs source: no continuation recorded',
    `carried next-token logits vs re-prefill: largest |Δ| ${r.carried_logits_vs_reprefill.toPrecision(3)}`,
    `control (V reversed): logits moved by ${r.control.max_abs_logit_diff.toPrecision(3)}`,
    `continuation: ${JSON.stringify(loaded.tokenizer.decode(r.restored_tokens))}`,
    `verdict: ${r.verdict}`,
  ];
  return lines.join('\n');
}

export const commands = {
  tokenize: {
    options: { model: { type: 'string' }, prompt: { type: 'string' }, json: { type: 'boolean' } },
    async run(v) {
      if (!v.model || v.prompt === undefined) throw new AdapterError('tokenize needs --model and --prompt');
      const loaded = await loadModel(v.model);
      const tokens = tokenize(loaded, v.prompt);
      print({ tokens }, v.json, tokens.join(','));
    },
  },
  capture: {
    options: {
      model: { type: 'string' }, prompt: { type: 'string' }, 'prompt-file': { type: 'string' },
      'token-ids': { type: 'string' }, out: { type: 'string' }, 'reference-steps': { type: 'string', default: '64' },
      json: { type: 'boolean' },
    },
    async run(v) {
      if (!v.model || !v.out) throw new AdapterError('capture needs --model and --out');
      const loaded = await loadModel(v.model);
      if (v['prompt-file']) {
        if (v.prompt) throw new AdapterError('give one of --prompt and --prompt-file');
        v.prompt = fs.readFileSync(v['prompt-file'], 'utf8');
      }
      const tokens = tokenIds(loaded, v);
      if (tokens.length === 0) throw new AdapterError('the prompt is empty');
      const steps = Number(v['reference-steps']);
      if (!Number.isInteger(steps) || steps < 0) throw new AdapterError('--reference-steps takes a count');
      const r = await capture(loaded, tokens, v.out, steps);
      print(r, v.json, `captured ${r.tokens} tokens into ${v.out} (prefill ${r.prefill_seconds.toFixed(4)} s)`);
    },
  },
  verify: {
    options: {
      model: { type: 'string' }, cache: { type: 'string' }, steps: { type: 'string', default: '64' },
      json: { type: 'boolean' },
    },
    async run(v) {
      if (!v.model || !v.cache) throw new AdapterError('verify needs --model and --cache');
      const loaded = await loadModel(v.model);
      const report = await verify(loaded, v.cache, positiveInteger(v.steps, '--steps'));
      print(report, v.json, printVerify(report, loaded));
      if (report.verdict !== 'exact' && report.verdict !== 'equivalent') {
        throw new AdapterError(`verify: verdict ${report.verdict}`);
      }
    },
  },
  bench: {
    options: {
      model: { type: 'string' }, cache: { type: 'string' }, reps: { type: 'string', default: '3' },
      json: { type: 'boolean' },
    },
    async run(v) {
      if (!v.model || !v.cache) throw new AdapterError('bench needs --model and --cache');
      const loaded = await loadModel(v.model);
      const r = await benchRestore(loaded, v.cache, positiveInteger(v.reps, '--reps'));
      print(r, v.json, `restore ${r.restore_seconds.toFixed(4)} s, re-prefill ${r.reprefill_seconds.toFixed(2)} s ` +
                       `(${r.speedup.toFixed(0)}x), medians of ${r.reps}`);
    },
  },
  logits: {
    options: {
      model: { type: 'string' }, prompt: { type: 'string' }, 'token-ids': { type: 'string' },
      top: { type: 'string', default: '5' }, 'logits-out': { type: 'string' }, json: { type: 'boolean' },
    },
    async run(v) {
      if (!v.model) throw new AdapterError('logits needs --model');
      const loaded = await loadModel(v.model);
      const tokens = tokenIds(loaded, v);
      if (tokens.length === 0) throw new AdapterError('the prompt is empty');
      const row = lastRow(await forward(loaded, tokens, null));
      if (v['logits-out']) fs.writeFileSync(v['logits-out'], Buffer.from(row.buffer, row.byteOffset, row.byteLength));
      const top = topIds(row, Number(v.top)).map((id) => ({ id, logit: row[id] }));
      print({ tokens, n_vocab: row.length, argmax: argmax(row), top }, v.json,
            top.map((t) => `  ${t.id}  ${t.logit}`).join('\n'));
    },
  },
};

// The causal check of a migrated cache in ONNX Runtime, as `vexfs kv verify` runs
// it in llama.cpp (docs/kv.md, "Verification"): a model that never saw the prompt
// continues greedily from the cache; the same model re-reads the prompt itself
// and continues; the two are compared token by token and logit by logit, and
// with the continuation the source recorded. A control continues from the cache
// with its V rows reversed, which must change the logits, or the check proves
// nothing.
import { argmax, forward, lastRow } from './model.mjs';
import { pastTensors, readCache, reverseValues } from './cache.mjs';

// Greedy steps from `first` (the logits of the last cached token): tokens[i] is
// the argmax of logits[i].
async function greedy(loaded, past, first, steps) {
  const tokens = [];
  const logits = [];
  let row = first;
  for (let i = 0; i < steps; ++i) {
    logits.push(row);
    tokens.push(argmax(row));
    if (i + 1 === steps) break;
    const out = await forward(loaded, [tokens[i]], past);
    past = out.past;
    row = lastRow(out);
  }
  return { tokens, logits };
}

function maxAbsDiff(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; ++i) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

// Tokens and full logits of two continuations; "aligned" covers the steps whose
// inputs still agree (up to and including the first divergence).
function compareRuns(a, b) {
  let first = -1;
  let agree = 0;
  let exact = 0;
  let worst = 0;
  let aligned = 0;
  for (let i = 0; i < a.tokens.length; ++i) {
    if (a.tokens[i] === b.tokens[i]) agree += 1;
    const d = maxAbsDiff(a.logits[i], b.logits[i]);
    if (d === 0) exact += 1;
    worst = Math.max(worst, d);
    if (first < 0) aligned = Math.max(aligned, d);
    if (first < 0 && a.tokens[i] !== b.tokens[i]) first = i;
  }
  return { steps: a.tokens.length, tokens_equal: first < 0, first_divergence: first, top1_agreement: agree,
           logits_bit_exact: exact, max_abs_logit_diff: worst, max_abs_logit_diff_aligned: aligned };
}

// Against the source's record: its tokens, and its largest logits of each step.
function compareReference(run, reference) {
  if (!reference || reference.steps.length === 0) return { available: false };
  const steps = Math.min(run.tokens.length, reference.steps.length);
  let first = -1;
  let agree = 0;
  let worst = 0;
  let aligned = 0;
  for (let i = 0; i < steps; ++i) {
    const step = reference.steps[i];
    if (run.tokens[i] === step.token) agree += 1;
    let d = 0;
    for (const [id, logit] of step.top) d = Math.max(d, Math.abs(run.logits[i][id] - logit));
    worst = Math.max(worst, d);
    if (first < 0) aligned = Math.max(aligned, d);
    if (first < 0 && run.tokens[i] !== step.token) first = i;
  }
  return { available: true, settings: reference.settings, steps, tokens_equal: first < 0, first_divergence: first,
           top1_agreement: agree, max_abs_logit_diff: worst, max_abs_logit_diff_aligned: aligned };
}

const seconds = (start) => Number(process.hrtime.bigint() - start) / 1e9;

function median(values) {
  const v = [...values].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

// Time to the first new token, `reps` times each, interleaved: restoring the
// exported cache (reading it and handing it over as Tensors; the first token is
// the argmax of the carried logits) against re-prefilling the prompt in ONNX
// Runtime (the first token is the argmax of its last logits). Medians, seconds.
export async function benchRestore(loaded, cacheDir, reps) {
  const restore = [];
  const reprefill = [];
  let same = true;
  for (let i = 0; i < reps; ++i) {
    let t = process.hrtime.bigint();
    const cache = readCache(cacheDir, loaded);
    pastTensors(cache);
    const restoredFirst = argmax(cache.nextLogits);
    restore.push(seconds(t));
    t = process.hrtime.bigint();
    const prefill = await forward(loaded, cache.manifest.tokens, null);
    const ownFirst = argmax(lastRow(prefill));
    reprefill.push(seconds(t));
    same = same && restoredFirst === ownFirst;
    const n = cache.manifest.n_tokens;
    process.stderr.write(`bench: ${n} tokens, rep ${i + 1}/${reps}: restore ${restore[i].toFixed(4)} s, ` +
                         `re-prefill ${reprefill[i].toFixed(2)} s\n`);
  }
  const r = median(restore);
  const p = median(reprefill);
  return { reps, restore_seconds: r, reprefill_seconds: p, speedup: p / r, restore_all: restore,
           reprefill_all: reprefill, same_first_token: same };
}

// Restoring is reading the exported cache and handing it over as Tensors: the
// time until the first new token can be chosen, as re-prefilling is for the
// model that reads the prompt itself.
export async function verify(loaded, cacheDir, steps) {
  const t0 = process.hrtime.bigint();
  const cache = readCache(cacheDir, loaded);
  const past = pastTensors(cache);
  const restoreSeconds = seconds(t0);
  const restored = await greedy(loaded, past, cache.nextLogits, steps);

  const t1 = process.hrtime.bigint();
  const prefill = await forward(loaded, cache.manifest.tokens, null);
  const reprefillSeconds = seconds(t1);
  const own = await greedy(loaded, prefill.past, lastRow(prefill), steps);

  const control = await greedy(loaded, pastTensors(cache, reverseValues(cache)), cache.nextLogits,
                               Math.min(steps, 8));
  const controlVs = compareRuns(control, { tokens: restored.tokens.slice(0, control.tokens.length),
                                           logits: restored.logits.slice(0, control.tokens.length) });
  // The control's first step reads the carried logits, which it shares: only
  // later steps read the corrupted cache.
  const controlChanged = controlVs.max_abs_logit_diff > 1e-3;

  const vsReprefill = compareRuns(restored, own);
  const vsSource = compareReference(restored, cache.manifest.reference);
  let verdict;
  if (!controlChanged) verdict = 'inconclusive';
  else if (!vsReprefill.tokens_equal) verdict = 'diverged';
  else verdict = vsReprefill.logits_bit_exact === vsReprefill.steps ? 'exact' : 'equivalent';
  return {
    runtime: 'onnxruntime (transformers.js)',
    n_tokens: cache.manifest.n_tokens,
    horizon: steps,
    carried_logits_vs_reprefill: maxAbsDiff(cache.nextLogits, lastRow(prefill)),
    vs_reprefill: vsReprefill,
    vs_source: vsSource,
    control: { changed: controlChanged, max_abs_logit_diff: controlVs.max_abs_logit_diff,
               first_divergence: controlVs.first_divergence },
    restore_seconds: restoreSeconds,
    reprefill_seconds: reprefillSeconds,
    restored_tokens: restored.tokens,
    verdict,
  };
}

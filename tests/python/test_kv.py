"""vexfs.kv: capture, restore and verify a KV cache through llama.cpp, on a
random-weight model with a real tokenizer, and the refusals of bad input."""
import os

import pytest

import vexfs
from vexfs import kv

PROMPT = "The agent's plan so far: read the logs, find the failing test, fix the parser. " * 3


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("kv")
    tiny = str(root / "tiny.gguf")
    other = str(root / "other.gguf")
    kv.init_model(tiny, shape="tiny", seed=1)
    kv.init_model(other, shape="tiny", seed=2)  # the same shape, other weights
    return kv.Model.load(tiny), kv.Model.load(other), root


@pytest.fixture(scope="module")
def state(models):
    model, _, root = models
    path = str(root / "state.usxf")
    report = kv.capture(model, path, prompt=PROMPT, reference_steps=16)
    return path, report


def test_model_properties_and_tokenizer(models):
    model, _, _ = models
    assert model.arch == "qwen2" and model.n_layers == 2 and model.n_heads == 4
    assert model.n_kv_heads == 2 and model.head_dim == 64 and model.n_vocab > 100_000
    tokens = model.tokenize("hello world")
    assert tokens and all(isinstance(t, int) for t in tokens)
    assert "hello world" in model.detokenize(tokens)


def test_capture_reports_what_it_wrote(models, state):
    model, _, _ = models
    path, report = state
    assert isinstance(report, kv.CaptureReport)
    assert report.n_tokens == len(model.tokenize(PROMPT))
    assert report.cache_type == "f16" and report.kv_bytes > 0
    assert report.file_bytes == os.path.getsize(path)
    assert len(report.reference_tokens) == 16
    assert report.prefill_seconds > 0 and report.capture_seconds > 0 and report.write_seconds > 0


def test_restore_continues_as_the_source_did(models, state):
    model, _, _ = models
    path, report = state
    generation = kv.restore(model, path, generate=16)
    assert isinstance(generation, kv.Generation)
    assert generation.restored_tokens == report.n_tokens
    assert generation.tokens == report.reference_tokens
    assert generation.text == model.detokenize(generation.tokens)
    assert generation.rebuild_seconds >= 0 and generation.load_seconds > 0


def test_verify_passes_the_causal_check(models, state):
    model, _, _ = models
    path, _ = state
    report = kv.verify(model, path, horizon=16, probes=16)
    assert isinstance(report, kv.ValidationReport)
    assert report.passed and report.verdict in ("exact", "equivalent")
    assert report.tensors.readback_equals_loaded
    assert report.vs_reprefill.tokens_equal and report.vs_source.tokens_equal
    assert report.control.changed  # the corrupted cache moved the logits
    assert report.control.max_abs_logit_diff > 0 and report.control.first_divergence in range(-1, 16)
    assert report.horizon == 16 and report.next_logits_equal_reprefill
    assert report.restore_seconds > 0 and report.reprefill_seconds > 0
    t = report.tensors
    assert t.layers == 2 and t.layers_equal == 2 and t.same_type_as_source
    assert t.bit_exact_vs_source and t.max_abs_diff_vs_source == 0
    for c in (report.vs_reprefill, report.vs_source):
        assert c.available and c.steps == 16 and c.first_divergence == -1 and c.top1_agreement == 16
        assert 0 <= c.logits_bit_exact <= 16 and 0 <= c.max_abs_logit_diff_aligned <= c.max_abs_logit_diff


def test_capture_from_tokens(models, tmp_path):
    model, _, _ = models
    tokens = model.tokenize(PROMPT)[:20]
    report = kv.capture(model, str(tmp_path / "t.usxf"), tokens=tokens, reference_steps=0)
    assert report.n_tokens == 20 and report.reference_tokens == []


def test_a_state_of_another_model_is_refused_naming_the_fingerprint(models, state):
    _, other, _ = models
    path, _ = state
    with pytest.raises(vexfs.InvalidArgumentError, match="weights fingerprint"):
        kv.restore(other, path)
    with pytest.raises(vexfs.InvalidArgumentError, match="weights fingerprint"):
        kv.verify(other, path)


def test_a_damaged_state_is_refused(models, state, tmp_path):
    model, _, _ = models
    path, _ = state
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0x40
    damaged = tmp_path / "damaged.usxf"
    damaged.write_bytes(bytes(data))
    with pytest.raises(vexfs.CorruptionError):
        kv.restore(model, str(damaged))
    truncated = tmp_path / "truncated.usxf"
    truncated.write_bytes(bytes(data[: len(data) // 3]))
    with pytest.raises(vexfs.CorruptionError):
        kv.restore(model, str(truncated))


def test_an_untrusted_keyring_is_refused(models, state, tmp_path):
    model, _, _ = models
    path, _ = state
    keyring = tmp_path / "keyring"
    keyring.mkdir()
    with pytest.raises(vexfs.Error):  # an empty keyring trusts no signer
        kv.restore(model, path, keyring=str(keyring))


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({}, vexfs.InvalidArgumentError, "prompt"),
        ({"prompt": "x", "tokens": [1]}, vexfs.InvalidArgumentError, "prompt"),
        ({"prompt": ""}, vexfs.InvalidArgumentError, "empty"),
        ({"tokens": [10**9]}, vexfs.InvalidArgumentError, "vocabulary"),
        ({"prompt": "x", "k_type": "f7"}, vexfs.InvalidArgumentError, "f7"),
        ({"prompt": "x", "v_type": "q8_0", "flash_attn": False}, vexfs.InvalidArgumentError, ""),
        ({"prompt": "x", "block_size": 0}, vexfs.InvalidArgumentError, "block_size"),
        ({"prompt": "x", "sign_key": "/nonexistent/key"}, vexfs.NotFoundError, ""),
    ],
)
def test_bad_capture_arguments(models, tmp_path, kwargs, error, words):
    model, _, _ = models
    out = tmp_path / "never.usxf"
    with pytest.raises(error, match=words):
        kv.capture(model, str(out), **kwargs)
    assert not out.exists()


def test_missing_files_are_not_found(models, tmp_path):
    model, _, _ = models
    with pytest.raises(vexfs.NotFoundError):
        kv.Model.load(str(tmp_path / "none.gguf"))
    with pytest.raises(vexfs.NotFoundError):
        kv.restore(model, str(tmp_path / "none.usxf"))
    with pytest.raises(vexfs.InvalidArgumentError):
        kv.init_model(str(tmp_path / "m.gguf"), shape="1,2")


def test_threads_sharing_a_model_get_the_same_answers(models, state):
    import threading

    model, _, _ = models
    path, report = state
    outcomes = []

    def restore():
        outcomes.append(kv.restore(model, path, generate=8).tokens)

    threads = [threading.Thread(target=restore) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes == [report.reference_tokens[:8]] * 3

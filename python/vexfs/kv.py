"""Moving a model's KV cache: capture a prompt's attention state into a signed,
verifiable USXF state file, restore it into a fresh llama.cpp context and go on
generating without re-reading the prompt, and check causally that the restored
cache computes what the source's did (docs/kv.md).

    from vexfs import kv
    kv.init_model("tiny.gguf")                 # random weights, real tokenizer
    model = kv.Model.load("tiny.gguf")
    kv.capture(model, "state.usxf", prompt="The plan so far:")
    print(kv.restore(model, "state.usxf", generate=16).text)
    assert kv.verify(model, "state.usxf").passed

Every call releases the GIL; threads may share a Model, whose calls take turns.
"""

from ._vexfs import KvCaptureReport as CaptureReport
from ._vexfs import KvContinuationCheck as ContinuationCheck
from ._vexfs import KvControlCheck as ControlCheck
from ._vexfs import KvGeneration as Generation
from ._vexfs import KvModel as Model
from ._vexfs import KvTensorCheck as TensorCheck
from ._vexfs import KvValidationReport as ValidationReport
from ._vexfs import kv_capture as capture
from ._vexfs import kv_init_model as init_model
from ._vexfs import kv_restore as restore
from ._vexfs import kv_verify as verify

__all__ = [
    "Model",
    "CaptureReport",
    "Generation",
    "ValidationReport",
    "TensorCheck",
    "ContinuationCheck",
    "ControlCheck",
    "init_model",
    "capture",
    "restore",
    "verify",
]

"""The Python front end: a kernel's AST, specialized on its arguments, becomes cuda_tile
ops built directly in the native arena (no text round trip)."""

from .specialize import ArraySpec, ScalarSpec, ConstantSpec, ListSpec, Specialization, list_records, specialize
from .translate import translate

__all__ = ["ArraySpec", "ScalarSpec", "ConstantSpec", "ListSpec", "Specialization", "list_records", "specialize",
           "translate"]

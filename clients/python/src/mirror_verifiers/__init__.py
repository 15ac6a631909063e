"""Mirror as a verifiers taskset under a top-level name verifiers' loader can import (`vf-eval mirror-verifiers`)."""

from mirror_client.verifiers_taskset import MirrorTaskset

__all__ = ["MirrorTaskset"]

"""Evidence a regulator can check without trusting us: the Merkle tree of each source's log (RFC 9162's hashing, its
inclusion and consistency proofs) and the evidence packet of a round, checked offline. Standard library and
``cryptography`` only, so that the checks run without the service, its database or its framework."""

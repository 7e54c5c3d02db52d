"""Configuration shared across layers: memory thresholds and solver constants."""


DENSE_CACHE_BYTES = 4 * 2**30


_REPLACE_EVERY = 50


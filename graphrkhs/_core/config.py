"""Configuration shared across layers: memory thresholds and solver constants."""


DENSE_CACHE_BYTES = 4 * 2**30


_REPLACE_EVERY = 50

#: Kernel CG stops a column as stalled after this many residual replacements in a row without a 10 %
#: decrease of its true residual (a single window stopped PLapRLS on a plateau it leaves 500 iterations later).
_STALL_WINDOWS = 4


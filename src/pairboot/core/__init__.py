"""The one computation: inputs paired into units, the pipeline (design -> sums ->
estimands -> intervals -> notes -> result), families, intervals and diagnostics."""

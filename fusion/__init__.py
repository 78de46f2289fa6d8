"""Score fusion: reciprocal rank fusion, later a learned model."""

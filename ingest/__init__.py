"""Ingest: parse legal sources into typed, versioned, citation-linked artifacts and stores."""

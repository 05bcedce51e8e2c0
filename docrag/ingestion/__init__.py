"""PDF and image ingestion into a page corpus."""

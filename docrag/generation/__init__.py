"""Answer generation with visual citations."""

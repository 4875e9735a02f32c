"""Stand-in for the SGLang server process, for tests and the demo fleet (no GPU). See README.md."""

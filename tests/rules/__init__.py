"""Position-based tests of every rule of the base game (RULES.md), one module per concern."""

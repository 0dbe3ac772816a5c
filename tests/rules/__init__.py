"""Position-based tests of every rule of the base game (docs/rules.md), one module per concern."""

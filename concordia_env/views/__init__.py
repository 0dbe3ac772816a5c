"""Ways to look at a game: :mod:`.render` (text, pictures, a window) and :mod:`.html` (self-contained HTML replays).

Views read a game through ``Game`` and its rule queries; they decide no rule.
"""

"""The strategy core: the project's one compiled home of how to play well.
"""

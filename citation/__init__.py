"""docrag.citation"""

"""docrag.index"""

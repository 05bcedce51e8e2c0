"""docrag.eval"""

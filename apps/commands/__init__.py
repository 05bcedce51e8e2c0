"""Sub-commands of the ``docrag`` CLI; each module exposes ``register(app)``."""

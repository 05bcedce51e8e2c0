"""Applications: the ``docrag`` command line and the Gradio viewer."""

"""What is asked: names, presets, Hugging Face configs and architectures resolved into the plain values the
formulas take.
"""

# Stands in for a missing matplotlib (tests/CMakeLists.txt puts this folder
# first on PYTHONPATH): importing it fails as if it were not installed.
raise ImportError("No module named 'matplotlib' (test stand-in)")

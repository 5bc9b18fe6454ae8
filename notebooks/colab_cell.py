# On Colab only: clone this book's repository and install its library and models (about
# 3 minutes); the notebook then runs as in Binder, with its data from the Hugging Face hub.
import os
import subprocess
import sys

if "google.colab" in sys.modules:
    REPOSITORY = "https://github.com/anisotropy-book/anisotropy-book"
    HOME = "/content/anisotropy-book"
    if not os.path.isdir(HOME):
        subprocess.run(["git", "clone", "--depth", "1", REPOSITORY, HOME], check=True)
        subprocess.run(["bash", f"{HOME}/scripts/colab_install.sh"], check=True)
    sys.path.insert(0, f"{HOME}/lib")
    os.chdir(f"{HOME}/notebooks")

# qring_edu — build, test and CI entry points.
#
#   make book         execute every chapter and build the HTML book into _build/html, with the
#                     library's wheel; where TeX is installed also the PDF (linked from the book)
#   make pdf          the book as one PDF, _build/latex/qring_edu.pdf (XeLaTeX), also copied
#                     into _build/html; reuses the chapters executed by `make book` if it ran
#                     before, else executes them
#   make dist         the library's wheel and sdist, into dist/
#   make test         lint (ruff), whether the pins resolve on the public index alone, library
#                     tests, the docstrings' examples (doctest), nbval over the chapter notebooks,
#                     strict book build, the PDF and its check, browser tests of the built HTML
#                     and of chapter 1 in JupyterLab
#   make check-install  whether .ci/constraints.txt resolves on the public package index alone
#   make test-doctest the docstrings' examples only (pytest --doctest-modules qring_edu)
#   make lint         ruff check and ruff format --check over the Python sources (LINT_PATHS)
#   make test-pdf     check the existing PDF (pdftotext: titles, captions, no raw TeX, no ??)
#   make test-browser browser tests of the existing _build/html (after `make book` and `make pdf`)
#   make notebooks    re-execute the chapter notebooks in place (run before committing them)
#   make boxes        rewrite the numbers of every chapter's "Before you start" box (reading time,
#                     words, code cells, exercises by kind; book/_tools/reading_box.py)
#   make assignments  regenerate the student versions of the assignments (book/assignments/student/)
#                     from their sources in instructor/assignments/ (otter assign)
#   make instructor   the instructor bundle: ONE archive, _build/instructor/qring_edu-instructor-
#                     <version>.zip (sources, autograders, solutions and rubrics; never in _build/html)
#   make lab          open JupyterLab on book/ with the venv's kernel (widgets live; LAB_ARGS=...)
#   make bench        run the benchmarks (bench/run.py -> bench/results.md; installs the bench extra)
#   make constraints  re-pin .ci/constraints.txt from the current .venv
#   make assets       install the book's front-end assets (MathJax) from package-lock.json
#   make browser      install Debian's chromium for the browser tests, if missing (needs root)
#   make tex          install Debian's TeX Live (XeLaTeX, latexmk), DejaVu fonts and poppler-utils
#                     for the PDF, if missing (needs root)
#   make clean        remove _build
#
# Optional: TORCH_INDEX=https://download.pytorch.org/whl/cpu takes torch (pinned to the public
# release 2.13.0) from PyPI's CPU-only index of PyTorch instead of PyPI, which serves Linux a CUDA
# build of several GB:  make book TORCH_INDEX=https://download.pytorch.org/whl/cpu
#
# Everything runs from a project virtualenv (.venv) created on first use; no activation is needed
# (tools are called as .venv/bin/python -m ..., or .venv/bin/jupyter-book). The HTML book also
# needs node/npm: `npm ci` installs the pinned MathJax into node_modules/; the part the book loads
# is copied to _assets/, which the build copies into _build/html/_static/ so the book works offline.

SHELL       := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := book

# Interpreter used to create the venv: python3.11 if present, else python3.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)

VENV        := .venv
VPY         := $(VENV)/bin/python
STAMP       := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
CONSTRAINTS := .ci/constraints.txt
TORCH_INDEX ?=
PIP_INDEXES := $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX))
# The extras of the project venv (pyproject.toml).
EXTRAS      := notebooks,book,test,torch,lab,dev
# Stamp for "assets installed from the lock and copied to _assets/".
ASSETS      := _assets/.installed
# The part of MathJax the book loads (copied by the build into _build/html/_static/): the combined
# TeX + CHTML script, the CHTML fonts, and what it loads on demand (TeX extensions, the menu's
# accessibility tools). About 7 of the package's 24 MB; the SVG output and other bundles stay out.
BOOK_ASSETS := _assets
MATHJAX_FILES := tex-mml-chtml.js output/chtml input/tex/extensions a11y ui sre adaptors
CHROMIUM    := /usr/bin/chromium
# The PDF: Debian packages of the LaTeX toolchain (XeLaTeX and the LaTeX packages Sphinx and
# book/_tools/qringbook.cls load, latexmk, DejaVu fonts for text, code and math, pdftotext and
# pdftoppm for the check), what `make tex` checks for, and where the PDF goes.
TEX_PACKAGES := texlive-xetex texlive-latex-recommended texlive-latex-extra \
                texlive-fonts-recommended latexmk fonts-dejavu-core fonts-dejavu-extra fontconfig \
                poppler-utils
TEX_COMMANDS := xelatex latexmk pdftotext pdftoppm pdfimages fc-list kpsewhich
TEX_FILES    := unicode-math.sty fncychap.sty changepage.sty newunicodechar.sty tabulary.sty
LATEX_DIR    := _build/latex
PDF_NAME     := qring_edu

# Chapter notebooks (book/NN_slug.ipynb).
NOTEBOOKS    = $(sort $(wildcard book/*.ipynb))
NB_TIMEOUT  := 300

# Kernels: put the venv's kernelspec first so Jupyter Book / nbclient always run the venv's
# Python, whatever kernels a user has installed elsewhere; use the platformdirs layout
# (silences jupyter_core's migration warning).
export JUPYTER_PATH := $(CURDIR)/$(VENV)/share/jupyter
export JUPYTER_PLATFORM_DIRS := 1
export PYTHONHASHSEED := 0
# One BLAS thread: the same floating-point results whatever the load (nbval compares printed
# numbers), and no oversubscription of the two cores by several kernels at once.
export OPENBLAS_NUM_THREADS := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1

# (jupyter-book has no `python -m` entry point; its console script lives in the venv.)
BOOK_BUILD = $(VENV)/bin/jupyter-book build . -W -n --keep-going

.PHONY: venv assets browser tex book pdf pdf-only dist test lint check-install test-lib test-doctest \
        test-notebooks test-build test-pdf test-browser notebooks boxes assignments instructor lab \
        bench constraints clean

# ---------------------------------------------------------------------------------------------
# Virtualenv: rebuilt when pyproject.toml or the constraints change.
venv: $(STAMP)

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@test -n "$(PYTHON)" || { echo "error: neither python3.11 nor python3 found" >&2; exit 1; }
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --upgrade -c $(CONSTRAINTS) pip
	$(VPY) -m pip install $(PIP_INDEXES) -c $(CONSTRAINTS) -e ".[$(EXTRAS)]"
	touch $@

# Benchmark peers (QuNetSim; torch comes with the test install), on top of the venv.
$(BENCH_STAMP): $(STAMP)
	$(VPY) -m pip install $(PIP_INDEXES) -c $(CONSTRAINTS) -e ".[bench]"
	touch $@

# ---------------------------------------------------------------------------------------------
# Front-end assets of the offline HTML book (package.json, pinned by package-lock.json): reinstalled
# whenever either file changes. `npm ci` installs exactly the lock and checks every integrity hash.
assets: $(ASSETS)

$(ASSETS): package.json package-lock.json
	@command -v npm >/dev/null || { echo "error: npm not found: the HTML book needs node/npm (see README.md)" >&2; exit 1; }
	npm ci --no-audit --no-fund
	rm -rf $(BOOK_ASSETS)
	mkdir -p $(BOOK_ASSETS)/mathjax/es5
	cp node_modules/mathjax/LICENSE $(BOOK_ASSETS)/mathjax/
	cd node_modules/mathjax/es5 && cp -r --parents $(MATHJAX_FILES) $(CURDIR)/$(BOOK_ASSETS)/mathjax/es5/
	touch $@

# Debian's Chromium for the browser tests (Playwright drives it; no browser download). Idempotent:
# installs only if $(CHROMIUM) is missing; needs root (CI runs as root).
browser:
	@if [ -x $(CHROMIUM) ]; then echo "chromium: $(CHROMIUM)"; else \
	  if [ "$$(id -u)" != 0 ]; then echo "error: $(CHROMIUM) missing; as root run: make browser" >&2; exit 1; fi; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; \
	fi

# Debian's TeX Live for the PDF, like chromium above: installs only what is missing; needs root.
tex:
	@missing=""; \
	for c in $(TEX_COMMANDS); do command -v $$c >/dev/null || missing="$$missing $$c"; done; \
	if command -v kpsewhich >/dev/null; then \
	  for f in $(TEX_FILES); do test -n "$$(kpsewhich $$f)" || missing="$$missing $$f"; done; fi; \
	if command -v fc-list >/dev/null; then \
	  for f in "DejaVu Serif" "DejaVu Sans Mono" "DejaVu Math TeX Gyre"; do \
	    fc-list "$$f" | grep -q . || missing="$$missing '$$f'"; done; fi; \
	if [ -z "$$missing" ]; then echo "TeX: $$(command -v xelatex)"; else \
	  if [ "$$(id -u)" != 0 ]; then echo "error: missing for the PDF:$$missing; as root run: make tex" >&2; exit 1; fi; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(TEX_PACKAGES); \
	fi

# ---------------------------------------------------------------------------------------------
# The library's wheel and sdist (the HTML book ships the wheel; book/_tools/distribution.py).
dist: $(STAMP)
	rm -rf dist
	$(VPY) -m build --no-isolation --quiet --outdir dist .
	@ls dist

# TeX present? Then the book gets its PDF (and the link to it); `make tex` installs TeX.
HAVE_TEX = $(shell command -v xelatex >/dev/null && command -v latexmk >/dev/null && echo 1)

# The book: a fresh build (Sphinx only re-reads changed pages, so an incremental build would
# neither re-execute every chapter nor re-report their warnings). QRING_PDF_LINK=1 tells the
# build that the PDF will be next to it, so the intro links it.
book: $(STAMP) $(ASSETS) dist
	rm -rf _build
	QRING_PDF_LINK=$(HAVE_TEX) $(BOOK_BUILD)
	@if [ -n "$(HAVE_TEX)" ]; then $(MAKE) --no-print-directory pdf-only; \
	 else echo "no TeX (xelatex, latexmk): the book has no PDF; as root, make tex, then make book"; fi
	@echo "HTML book: $(CURDIR)/_build/html/index.html"

# The PDF: Sphinx's LaTeX builder (-W -n, like the HTML) writes _build/latex/qring_edu.tex, latexmk
# runs XeLaTeX on it (book/_tools/latex_book.py and _config.yml hold the LaTeX side). No `rm -rf`:
# the LaTeX build shares _build/.doctrees with the HTML build, so after `make book` (same sources
# and configuration) Sphinx re-reads nothing and no notebook is executed a second time; without
# it, every chapter is executed here.
pdf: $(STAMP) tex
	$(MAKE) --no-print-directory pdf-only

pdf-only:
	rm -rf $(LATEX_DIR)
	QRING_PDF_LINK=1 $(BOOK_BUILD) --builder latex
	cd $(LATEX_DIR) && latexmk -pdf -dvi- -ps- -interaction=nonstopmode -halt-on-error \
	  -file-line-error -quiet $(PDF_NAME).tex
	@if [ -d _build/html ]; then cp $(LATEX_DIR)/$(PDF_NAME).pdf _build/html/; fi
	@echo "PDF: $(CURDIR)/$(LATEX_DIR)/$(PDF_NAME).pdf ($$(pdfinfo $(LATEX_DIR)/$(PDF_NAME).pdf | awk '/^Pages/{print $$2}') pages)"

# ---------------------------------------------------------------------------------------------
# Tests, in order, stopping at the first failure.
test: $(STAMP) $(ASSETS) browser tex
	@echo "== [lint] ruff check + ruff format --check"
	$(MAKE) --no-print-directory lint
	@echo "== [pins] the pinned install resolves on the public package index alone"
	$(MAKE) --no-print-directory check-install
	@echo "== [dist] the library's wheel and sdist (the HTML book ships the wheel)"
	$(MAKE) --no-print-directory dist
	@echo "== [0/6] committed notebooks are executed and normalised"
	$(VPY) book/_tools/execute_notebooks.py --check $(NOTEBOOKS)
	@echo "== [1/6] library, widget and exercise tests (pytest tests)"
	$(VPY) -m pytest tests --ignore=tests/browser --ignore=tests/pdf
	@echo "== [2/6] the docstrings' examples (pytest --doctest-modules qring_edu)"
	$(MAKE) --no-print-directory test-doctest
	@echo "== [3/6] nbval: stored notebook outputs against a fresh run"
	$(MAKE) --no-print-directory test-notebooks
	@echo "== [4/6] strict book build (-W -n), from scratch"
	rm -rf _build
	QRING_PDF_LINK=1 $(BOOK_BUILD)
	@echo "== [5/6] the PDF, from the same build, and its check (pytest tests/pdf)"
	$(MAKE) --no-print-directory pdf-only
	$(VPY) -m pytest tests/pdf
	@echo "== [6/6] the built HTML in Chromium, offline, and chapter 1 in JupyterLab (pytest tests/browser)"
	$(VPY) -m pytest tests/browser

# The linter (configured in pyproject.toml [tool.ruff], pinned in the constraints): rules first,
# then whether `ruff format` would change any file.
LINT_PATHS := qring_edu tests bench examples book/_tools instructor/going_further.py .ci
lint: $(STAMP)
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)

# pip with its configuration switched off (no local wheels, no extra index): every pin exists on
# the public index and the full pinned install resolves (.ci/check_install.py; needs the network).
check-install: $(STAMP)
	$(VPY) .ci/check_install.py --constraints $(CONSTRAINTS)

test-lib: $(STAMP)
	$(VPY) -m pytest tests --ignore=tests/browser --ignore=tests/pdf

# Every Examples section of the library's docstrings (the API reference shows them), run as
# doctests: collection imports every module of qring_edu, qring_edu.ddp (torch) included.
test-doctest: $(STAMP)
	$(VPY) -m pytest --doctest-modules qring_edu

test-notebooks: $(STAMP)
	@test -n "$(NOTEBOOKS)" || { echo "error: no notebooks in book/" >&2; exit 1; }
	$(VPY) -m pytest --nbval --nbval-current-env \
	  --nbval-sanitize-with tests/nbval_sanitize.cfg \
	  --nbval-cell-timeout $(NB_TIMEOUT) \
	  $(NOTEBOOKS)

test-build: $(STAMP) $(ASSETS) dist
	rm -rf _build
	$(BOOK_BUILD)

test-pdf: $(STAMP) tex
	@test -f $(LATEX_DIR)/$(PDF_NAME).pdf || { echo "error: no $(LATEX_DIR)/$(PDF_NAME).pdf: run make pdf first" >&2; exit 1; }
	$(VPY) -m pytest tests/pdf

test-browser: $(STAMP) browser
	@test -f _build/html/index.html || { echo "error: no _build/html: run make book first" >&2; exit 1; }
	$(VPY) -m pytest tests/browser

# ---------------------------------------------------------------------------------------------
# Re-execute the chapter notebooks in place (outputs are committed; nbval checks them).
notebooks: $(STAMP)
	@test -n "$(NOTEBOOKS)" || { echo "error: no notebooks in book/" >&2; exit 1; }
	$(VPY) book/_tools/execute_notebooks.py --timeout $(NB_TIMEOUT) $(NOTEBOOKS)

# The "Before you start" box of every chapter that carries its markers: the numbers between
# them are written by the tool from the notebook (tests/test_reading_boxes.py fails on drift).
boxes: $(STAMP)
	$(VPY) book/_tools/reading_box.py $(NOTEBOOKS)

# ---------------------------------------------------------------------------------------------
# Graded assignments. The sources (solutions, hidden tests, rubrics) are the instructors', in
# instructor/assignments/, outside the public book; the book shows the student versions, which
# `make assignments` regenerates. `make instructor` packs instructor/ (README, the private guide,
# the sources) and the autograders otter assign generates into ONE archive, out of _build/html.
assignments: $(STAMP)
	$(VPY) book/_tools/instructor_bundle.py --students

instructor: $(STAMP)
	$(VPY) book/_tools/instructor_bundle.py --out _build/instructor

# ---------------------------------------------------------------------------------------------
# JupyterLab on book/, to run the chapters interactively: the widgets are live there (JupyterLab
# renders ipywidgets through jupyterlab_widgets, in the lab extra). The server runs from the venv,
# so the notebooks' "python3" kernel is the venv's Python (jupyter_client launches a kernelspec's
# "python" as the server's own interpreter; JUPYTER_PATH above puts the venv's kernelspec first).
# JupyterLab saves edited and re-run notebooks in place: `git checkout book/` restores the
# committed ones (or `make notebooks` re-executes them). Extra options: make lab LAB_ARGS="--no-browser --port 8890".
# (Jupyter refuses to run as root without --allow-root; CI and these machines run as root.)
LAB_ARGS ?=
lab: $(STAMP)
	$(VPY) -m jupyterlab --ServerApp.root_dir=book $$([ "$$(id -u)" = 0 ] && echo --allow-root) $(LAB_ARGS)

bench: $(BENCH_STAMP)
	$(VPY) bench/run.py

# ---------------------------------------------------------------------------------------------
# Re-pin the whole toolchain from the venv (everything but qring_edu itself and the venv's
# own setuptools/wheel; pip is pinned too). Review the diff, then run `make test`.
constraints: $(STAMP)
	{ \
	  echo "# Exact pins of the whole qring_edu toolchain (runtime, book, test, lab and dev dependencies),"; \
	  echo "# used as:  pip install -c .ci/constraints.txt -e \".[$(EXTRAS)]\"  (see the Makefile)."; \
	  echo "# pyproject.toml keeps compatible ranges; this file makes every install reproducible."; \
	  echo "# Generated from a pip freeze of .venv on $$($(VPY) -c 'import platform; print("Python", platform.python_version())')."; \
	  echo "# Do not edit by hand. To regenerate (e.g. after changing dependencies in pyproject.toml):"; \
	  echo "#   make constraints      # then review the diff and run: make test"; \
	  echo "# To move to newer releases: delete the pins you want to float, rm -rf .venv, make constraints."; \
	  $(VPY) -m pip freeze --all --exclude-editable \
	    | grep -v -i -E '^(qring[-_]edu|setuptools|wheel|distribute)([ =@]|$$)' \
	    | sed -E 's/^([^=]+==[^+]+)\+.*$$/\1/' \
	    | LC_ALL=C sort -f; \
	} > $(CONSTRAINTS).tmp
	mv $(CONSTRAINTS).tmp $(CONSTRAINTS)
	touch $(STAMP)
	@echo "wrote $(CONSTRAINTS)"

clean:
	rm -rf _build dist

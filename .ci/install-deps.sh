#!/usr/bin/env bash
# Installs whatever predictivebench needs and is missing: Debian packages (system libraries,
# Python with pandas/openpyxl/pytest, pandoc), then the CRAN packages named in DESCRIPTION,
# from source. Does nothing (in a second or two) when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(
  python3 python3-pandas python3-openpyxl python3-pytest python3-numpy
  libcurl4-openssl-dev libssl-dev libxml2-dev libuv1-dev zlib1g-dev pandoc make
)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

Rscript --vanilla - <<'RSCRIPT'
fields <- read.dcf("DESCRIPTION", c("Imports", "Suggests"))
deps <- unlist(strsplit(paste(fields[!is.na(fields)], collapse = ","), ","))
deps <- trimws(sub("\\(.*\\)", "", deps))
deps <- setdiff(deps[nzchar(deps)], c("R", rownames(installed.packages(priority = "base"))))
deps <- unique(c(deps, "roxygen2", "pkgload", "testthat"))
missing <- deps[!vapply(deps, requireNamespace, logical(1), quietly = TRUE)]
if (length(missing)) {
  message("Installing CRAN packages: ", paste(missing, collapse = ", "))
  lib <- .libPaths()[[1]]
  install.packages(missing, repos = "https://cloud.r-project.org", lib = lib,
                   Ncpus = max(1L, parallel::detectCores()))
  still <- missing[!vapply(missing, requireNamespace, logical(1), quietly = TRUE)]
  if (length(still)) stop("Could not install: ", paste(still, collapse = ", "))
}
RSCRIPT

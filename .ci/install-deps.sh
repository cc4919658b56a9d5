#!/usr/bin/env bash
# Installs whatever predictivebench needs and is missing: Debian packages (system libraries,
# Python with pandas/openpyxl/pytest, pandoc), then the CRAN packages named in DESCRIPTION,
# from source. Does nothing (in a second or two) when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(
  python3 python3-pandas python3-openpyxl python3-pytest python3-numpy python3-jsonschema
  libcurl4-openssl-dev libssl-dev libxml2-dev libuv1-dev zlib1g-dev pandoc make
  libarchive-dev  # CRAN archive: reads .eval logs (zip entries in zstd or deflate)
  qpdf  # R CMD check --as-cran warns without it ("'qpdf' is needed for checks on size reduction of PDFs")
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

# Checked without loading anything: a package loaded here would keep its old version in this
# session after an upgrade and make the post-install check fail, and an installed but too old
# package (below DESCRIPTION's minimum) counts as missing.
# Not --vanilla: the repositories come from R's own configuration (Rprofile.site), never from here.
Rscript --no-save --no-restore --no-init-file --no-environ - <<'RSCRIPT'
fields <- read.dcf("DESCRIPTION", c("Imports", "Suggests"))
deps <- trimws(unlist(strsplit(paste(fields[!is.na(fields)], collapse = ","), ",")))
deps <- c(deps[nzchar(deps)], "roxygen2", "pkgload", "testthat")
name <- trimws(sub("\\(.*", "", deps))
minimum <- ifelse(grepl(">=", deps), trimws(sub(".*>=\\s*([^)]+)\\).*", "\\1", deps)), NA)
keep <- !duplicated(name) & !name %in% c("R", rownames(installed.packages(priority = "base")))
name <- name[keep]
minimum <- minimum[keep]
lacking <- function() {
  installed <- vapply(name, function(p) {
    v <- suppressWarnings(utils::packageDescription(p, fields = "Version"))
    if (is.na(v)) NA_character_ else v
  }, "")
  too_old <- mapply(function(have, need) {
    !is.na(have) && !is.na(need) && package_version(have) < package_version(need)
  }, installed, minimum)
  name[is.na(installed) | too_old]
}
missing <- lacking()
if (length(missing)) {
  repos <- getOption("repos")
  if (!length(repos) || any(repos == "@CRAN@")) {
    stop("No CRAN mirror is configured: set options(repos = ...) in Rprofile.site or ~/.Rprofile.")
  }
  message("Installing CRAN packages: ", paste(missing, collapse = ", "))
  install.packages(missing, lib = .libPaths()[[1]],
                   Ncpus = max(1L, parallel::detectCores()))
  still <- lacking()
  if (length(still)) stop("Could not install: ", paste(still, collapse = ", "))
}
RSCRIPT

# Everything must load in a fresh session (a broken or half-upgraded install fails here).
Rscript --vanilla -e 'fields <- read.dcf("DESCRIPTION", "Imports")
  deps <- trimws(sub("\\(.*", "", strsplit(fields[!is.na(fields)], ",")[[1]]))
  for (p in deps[nzchar(deps)]) loadNamespace(p)'

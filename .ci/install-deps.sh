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
# One dpkg-query for all and no process per package (a call per package took seconds on a busy
# machine); a package dpkg does not know prints no line and counts as missing.
installed_apt=$(dpkg-query -W -f='${Package} ${Status}\n' "${apt_packages[@]}" 2>/dev/null |
  awk '$NF == "installed" { sub(":.*", "", $1); print $1 }' || true)
missing=()
for pkg in "${apt_packages[@]}"; do
  [[ $'\n'$installed_apt$'\n' == *$'\n'$pkg$'\n'* ]] || missing+=("$pkg")
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
# Exits with status 3 after installing something (then the load check below runs).
status=0
Rscript --no-save --no-restore --no-init-file --no-environ - <<'RSCRIPT' || status=$?
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
  quit(status = 3)
}
RSCRIPT
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || exit "$status"

# After an install, everything must load in a fresh session (a broken or half-upgraded install
# fails here). Skipped when nothing was installed: loading every import took 15 s on a busy
# machine, and a library this script did not touch is loaded by the check anyway.
if [ "$status" -eq 3 ]; then
  Rscript --vanilla -e 'fields <- read.dcf("DESCRIPTION", "Imports")
    deps <- trimws(sub("\\(.*", "", strsplit(fields[!is.na(fields)], ",")[[1]]))
    for (p in deps[nzchar(deps)]) loadNamespace(p)'
fi

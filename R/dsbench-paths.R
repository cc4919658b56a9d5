# DSBench: which files a task-table row may touch: its competition folder directly inside the
# data folder, its image and workbooks inside that, links resolved. A table may come from
# anywhere, so every row is checked before any request: images are uploaded to the provider
# and workbooks opened by the model's tools.

dsbench_row_folders <- function(rows, call = rlang::caller_env()) {
  out <- rep(NA_character_, nrow(rows))
  for (i in which(!is.na(rows$folder))) {
    folder <- rows$folder[[i]]
    cid <- rows$competition_dir[[i]]
    row <- dsbench_row_label(rows, i)
    if (is.na(cid) || grepl("[/\\\\]", cid) || cid %in% c("", ".", "..")) {
      abort_path_outside(dirname(folder), cid, "competition folder", file = dirname(folder),
                         row = row, field = "competition_dir", call = call)
    }
    # `folder` is file.path(<data folder>, competition_dir) (dsbench_dataset()).
    if (!identical(basename(folder), cid)) {
      abort_pb("The row's {.field folder} {.file {folder}} is not its {.field competition_dir}
                {.val {cid}} in a data folder.", "path", file = folder, row = row,
               field = "folder", call = call)
    }
    out[[i]] <- check_path_inside(dirname(folder), cid, "competition folder",
                                  file = dirname(folder), row = row,
                                  field = "competition_dir", call = call)
  }
  out
}

dsbench_row_images <- function(rows, folders, call = rlang::caller_env()) {
  out <- rep(NA_character_, nrow(rows))
  for (i in which(!is.na(rows$image_used))) {
    used <- rows$image_used[[i]]
    row <- dsbench_row_label(rows, i)
    # Relative to the data folder, and inside this row's competition folder.
    real <- path_inside(dirname(rows$folder[[i]]), used)
    if (is.null(real) || !is_within(real, folders[[i]])) {
      abort_path_outside(rows$folder[[i]], used, "image", file = rows$folder[[i]], row = row,
                         field = "image_used", call = call)
    }
    if (!file.exists(real)) {
      abort_pb("The image {.val {used}} does not exist.", "missing_file", file = real,
               row = row, field = "image_used", call = call)
    }
    if (!tolower(tools::file_ext(real)) %in% dsbench_image_types) {
      abort_pb("The image {.val {used}} is not a {.val {dsbench_image_types}} file.", "field",
               file = real, row = row, field = "image_used", call = call)
    }
    out[[i]] <- real
  }
  out
}

# The image files ellmer::content_image_file() can send.
dsbench_image_types <- c("png", "jpg", "jpeg", "webp", "gif")

dsbench_check_workbooks <- function(rows, folders, call = rlang::caller_env()) {
  for (i in seq_len(nrow(rows))) {
    for (name in rows$workbook_files[[i]]) {
      check_path_inside(folders[[i]], name, "workbook", file = rows$folder[[i]],
                        row = dsbench_row_label(rows, i), field = "workbook_files",
                        call = call)
    }
  }
  invisible(rows)
}

# "3 (id c1_question1)": the row of the task's dataset, and its id.
dsbench_row_label <- function(rows, i) {
  row <- if (".row" %in% names(rows)) rows$.row[[i]] else i
  if ("id" %in% names(rows)) paste0(row, " (id ", rows$id[[i]], ")") else row
}

# Shared by the test-deltabench-*.R files: the fields a DeltaBench log keeps.

db_fields <- c("label", "task_l1", "task_l2", "error_sections", "unuseful_sections")

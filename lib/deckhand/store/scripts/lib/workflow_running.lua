-- Stands in for lib/workflow_end.lua where the step acted on stays open, so the workflow cannot end.
local function wf_end_checks() return {W.counts, 'hash'} end
local function wf_end_write() end

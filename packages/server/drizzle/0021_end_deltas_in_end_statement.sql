-- The statement that ends an execution (the engine's one end statement) now appends its count and
-- usage deltas itself (docs/decisions/0091-end-deltas-in-the-end-statement.md): the two row
-- triggers cost a trigger call and an SPI statement each on every end.
DROP TRIGGER "executions_count_ended" ON "executions";
--> statement-breakpoint
DROP FUNCTION "weft_count_ended_execution"();
--> statement-breakpoint
DROP TRIGGER "executions_meter_ended" ON "executions";
--> statement-breakpoint
DROP FUNCTION "weft_meter_ended_execution"();

DROP TABLE event_deliveries;
DROP TABLE event_webhooks;
DROP TABLE events;

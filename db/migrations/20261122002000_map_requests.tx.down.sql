DROP TABLE map_requests;

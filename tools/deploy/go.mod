module github.com/jobwheel/jobwheel/tools/deploy

go 1.26.0
